/*
 * Outbound HTTP and webhook delivery: what API modules import.
 */
export {
  addressPolicy,
  checkTargetUrl,
  createOutbound,
  OutboundError,
  sharedOutbound,
  type Outbound,
  type OutboundErrorKind,
  type OutboundPolicy,
  type OutboundRequest,
  type OutboundResponse,
} from './outbound.js';
export {
  cancelDeliveries,
  deliveriesCte,
  lastSuccess,
  recentAttempts,
  retargetDeliveries,
  scheduleDelivery,
  WEBHOOKS_STREAM,
  type AttemptRecord,
  type DeliverySpec,
  type DeliveryState,
  type SubscriptionRef,
} from './deliveries.js';
export {
  deliveryStream,
  type DeliveryStreamOptions,
  type DeliverySourceHooks,
  type DeliverySources,
  type GoneContext,
} from './deliveryStream.js';
export { HostLimits, sharedHostLimits } from './hostLimits.js';
export { redeliver, redeliverWebhooks, SKIP_REASONS, type Redelivery, type RedeliveryTarget, type SkippedDelivery } from './redelivery.js';
export { deliveryDetail, type DeliveryEvent, type DeliveryView } from './views.js';
export { Delivery } from './model.js';
export { deliveryAnswers, signatureHeaderParameters, verifyingSignatures } from './webhookDocs.js';
