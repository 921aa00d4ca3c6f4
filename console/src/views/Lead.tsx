/* One lead: who sent it, about what, when, and its message. */
import { seg } from '../api';
import { LoadState } from '../components/LoadState';
import { Page } from '../components/Page';
import { Time } from '../components/Time';
import { useGet } from '../hooks/useGet';
import type { Lead } from '../types';

export function LeadPage({ leadId }: { leadId: string }) {
  const loaded = useGet<Lead>(`/leads/leads/${seg(leadId)}`);
  const lead = loaded.data;
  const contact = lead?.contactRequest;
  return (
    <Page title="Lead">
      <p>
        <a href="/console/leads">← Leads</a>
      </p>
      <LoadState loaded={loaded} what="the lead" />
      {lead && contact ? (
        <>
          <dl class="facts">
            <div>
              <dt>leadId</dt>
              <dd>
                <code class="id">{lead.metadata.leadId}</code>
              </dd>
            </div>
            <div>
              <dt>Category</dt>
              <dd>{lead.metadata.category}</dd>
            </div>
            <div>
              <dt>Received</dt>
              <dd>
                <Time value={lead.metadata.ingestionDate} />
              </dd>
            </div>
            <div>
              <dt>Submitted</dt>
              <dd>
                <Time value={lead.metadata.submittedDate} />
              </dd>
            </div>
            <div>
              <dt>classifiedId</dt>
              <dd>{lead.property.classifiedId ?? '—'}</dd>
            </div>
            <div>
              <dt>requestId</dt>
              <dd>
                <code class="id">{lead.metadata.requestId}</code>
              </dd>
            </div>
          </dl>
          <section aria-labelledby="contact-heading">
            <h2 id="contact-heading">Contact</h2>
            <dl class="facts">
              <div>
                <dt>Name</dt>
                <dd>{contact.name ?? <span class="muted">erased</span>}</dd>
              </div>
              <div>
                <dt>Email</dt>
                <dd>
                  <a href={`mailto:${contact.email}`}>{contact.email}</a>
                </dd>
              </div>
              <div>
                <dt>Gender</dt>
                <dd>{contact.gender ?? '—'}</dd>
              </div>
              <div>
                <dt>Language</dt>
                <dd>{contact.language ?? '—'}</dd>
              </div>
              <div>
                <dt>Phone numbers</dt>
                <dd>
                  {contact.phoneNumbers.length === 0 ? (
                    '—'
                  ) : (
                    <ul class="plain">
                      {contact.phoneNumbers.map((phone) => (
                        <li key={phone.number}>
                          {phone.number}
                          {phone.type ? <span class="muted"> ({phone.type.toLowerCase()})</span> : null}
                          {phone.verified ? <span class="muted"> verified</span> : null}
                        </li>
                      ))}
                    </ul>
                  )}
                </dd>
              </div>
            </dl>
          </section>
          <section aria-labelledby="message-heading">
            <h2 id="message-heading">Message</h2>
            {contact.message === null ? <p class="muted">Erased at its author's request.</p> : <p class="message">{contact.message}</p>}
          </section>
        </>
      ) : null}
    </Page>
  );
}
