/** Outbound HTTP and webhook delivery: what API modules import. */
export { checkTargetUrl, createOutbound, OutboundError, sharedOutbound, type Outbound, type OutboundErrorKind, type OutboundPolicy, type OutboundRequest, type OutboundResponse } from './outbound.js';
export {
  cancelDeliveries,
  DELIVER_WEBHOOK,
  lastSuccess,
  recentAttempts,
  redeliver,
  retargetDeliveries,
  scheduleDeliveries,
  scheduleDelivery,
  type AttemptRecord,
  type DeliveryOwner,
  type DeliverySpec,
  type DeliveryState,
  type RedeliveryTarget,
  type SubscriptionRef,
} from './deliveries.js';
export { deliverWebhookJob, type DeliverJobOptions, type DeliverySourceHooks, type DeliverySources, type GoneContext } from './deliverJob.js';
