/* One webhook delivery of the integrator's (a status webhook or a lead notification), with Redeliver. */
import { post, seg } from '../api';
import { DeliveryDetails, usePollWhilePending } from '../components/DeliveryDetails';
import { Page } from '../components/Page';
import { useGet } from '../hooks/useGet';
import type { Delivery, Redelivery } from '../types';

const SOURCE_NAMES: Record<string, string> = { caas: 'status webhook', leads: 'lead notification' };

export function DeliveryPage({ source, id }: { source: string; id: string }) {
  const loaded = useGet<Delivery>(`/${seg(source)}/deliveries/${seg(id)}`);
  usePollWhilePending(loaded);
  return (
    <Page title={`Delivery of a ${SOURCE_NAMES[source] ?? 'webhook'}`}>
      <p>
        <a href="/console/webhooks">← Webhooks</a>
      </p>
      <DeliveryDetails loaded={loaded} redeliver={() => post<Redelivery>(`/${seg(source)}/deliveries/${seg(id)}/redeliveries`)} />
    </Page>
  );
}
