/* One delivery of any agency, for the operator, with Redeliver (the /admin redelivery). */
import { post, seg } from '../../api';
import { DeliveryDetails, usePollWhilePending } from '../../components/DeliveryDetails';
import { Page } from '../../components/Page';
import { useGet } from '../../hooks/useGet';
import type { Delivery, Owner, Redelivery } from '../../types';

export function AdminDeliveryPage({ id }: { id: string }) {
  const loaded = useGet<Delivery & Owner>(`/admin/deliveries/${seg(id)}`);
  usePollWhilePending(loaded);
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
        redeliver={() => post<Redelivery>('/admin/deliveries/redeliveries', { deliveryId: id })}
      />
    </Page>
  );
}
