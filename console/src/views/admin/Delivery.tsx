/* One delivery of any agency, for the operator, with Redeliver (the /admin redelivery). */
import { post, seg } from '../../api';
import { DeliveryDetails, usePollWhilePending } from '../../components/DeliveryDetails';
import { Page } from '../../components/Page';
import { ProblemView } from '../../components/Problem';
import { useAction } from '../../hooks/useAction';
import { useGet } from '../../hooks/useGet';
import { type Delivery, type Owner, type Redelivery, redeliveryOutcome } from '../../types';

export function AdminDeliveryPage({ id }: { id: string }) {
  const loaded = useGet<Delivery & Owner>(`/admin/deliveries/${seg(id)}`);
  usePollWhilePending(loaded);
  const redelivery = useAction<Redelivery>();
  const result = redelivery.result && redeliveryOutcome(redelivery.result);
  const delivery = loaded.data;
  return (
    <Page title="Delivery">
      <p>
        <a href="/console/admin/deliveries">← Deliveries</a>
      </p>
      <DeliveryDetails
        loaded={loaded}
        owner={
          delivery ? (
            <>
              <div>
                <dt>Agency</dt>
                <dd>{delivery.agency}</dd>
              </div>
              <div>
                <dt>Environment</dt>
                <dd>{delivery.environment}</dd>
              </div>
              <div>
                <dt>API</dt>
                <dd>{delivery.source === 'caas' ? 'classifieds (status webhook)' : 'leads (notification)'}</dd>
              </div>
            </>
          ) : null
        }
        actions={
          <>
            <button
              type="button"
              class="primary"
              disabled={redelivery.busy}
              onClick={async () => {
                await redelivery.run(() => post<Redelivery>('/admin/deliveries/redeliveries', { deliveryId: id }));
                loaded.reload();
              }}
            >
              Redeliver
            </button>
            <button type="button" onClick={loaded.reload}>
              Refresh
            </button>
            <div aria-live="polite" class="outcome">
              {redelivery.error !== undefined ? <ProblemView error={redelivery.error} /> : null}
              {result ? (
                <p class={result.queued ? 'ok' : 'warn'}>
                  {result.queued
                    ? 'Redelivery queued: a worker sends it again now, under the same webhook-id.'
                    : `Not redelivered: ${result.reason ?? 'skipped'}.`}
                </p>
              ) : null}
            </div>
          </>
        }
      />
    </Page>
  );
}
