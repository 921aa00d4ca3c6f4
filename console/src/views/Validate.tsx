/*
 * Try a payload: a classified or a listing pasted and checked by the APIs' validate extensions,
 * which run the write path's own schema and business rules and write nothing. The answer lists
 * every schema error and, for a classified, every portal's verdict with the rules it would break.
 */
import { useState } from 'preact/hooks';
import { call } from '../api';
import { ProblemView } from '../components/Problem';
import { Page } from '../components/Page';
import { StatusBadge } from '../components/StatusBadge';
import { TableRegion } from '../components/Table';
import { useAction } from '../hooks/useAction';
import { holds, useSession } from '../session';
import type { ClassifiedValidation, FieldError, ListingValidation } from '../types';

type Kind = 'classified' | 'listing';

/** A classified every portal of it accepts: a rental on SL with a rent, as the README's walkthrough sends. */
const CLASSIFIED_EXAMPLE = {
  portals: ['SL'],
  data: {
    estateType: 'APARTMENT',
    estateSubType: { apartment: 'LOFT' },
    distributionType: 'RENT',
    location: { postalcode: '75011', city: 'Paris', street: 'Rue Oberkampf', houseNumber: '12', country: 'FR' },
    prices: { currency: 'EUR', rent: { baseRent: { amount: 1900 } } },
    metaData: {
      source: { sourceSystem: 'MyCrm', sourceSystemVersion: '1.0.0', offererMarketingKey: 'k-1', offererEstateId: 'E-1001' },
    },
  },
  media: [{ url: 'https://cdn.example.org/e-1001/living.jpg', mediaType: 'PICTURE', category: 'LIVING_ROOM' }],
};

/** The listing import documents a complete example of its request: the example of a schema holding data and metadata. */
async function listingExample(): Promise<unknown> {
  const response = await fetch('/import-listings/v1/openapi.json');
  if (!response.ok) throw new Error(`the listing import's OpenAPI document answered ${response.status}`);
  const document: { components?: { schemas?: Record<string, { example?: unknown }> } } = await response.json();
  for (const schema of Object.values(document.components?.schemas ?? {})) {
    const example = schema.example;
    if (example !== null && typeof example === 'object' && 'data' in example && 'metadata' in example) return example;
  }
  throw new Error("the listing import's OpenAPI document has no example request");
}

function ErrorsTable({ errors, caption }: { errors: FieldError[]; caption: string }) {
  return (
    <TableRegion label={caption}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Where</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {errors.map((error) => (
            <tr key={`${error.name}|${error.reason}`}>
              <th scope="row">
                <code>{error.name}</code>
              </th>
              <td class="wrap">{error.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}

type PortalVerdict = ClassifiedValidation['portals'][number];

function PortalList({ portals }: { portals: PortalVerdict[] }) {
  return (
    <ul class="portals">
      {portals.map((portal) => (
        <li key={portal.portal}>
          <strong>{portal.portal}</strong> <StatusBadge status={portal.accepted ? 'accepted' : 'rejected'} />
          {portal.violations.length > 0 ? (
            <ul>
              {portal.violations.map((violation) => (
                <li key={`${violation.rule}|${violation.name}|${violation.reason}`}>
                  {violation.rule ? (
                    <>
                      <code>{violation.rule}</code>: <code>{violation.name}</code> {violation.reason}
                    </>
                  ) : (
                    <>
                      <code>{violation.name}</code>: {violation.reason}
                    </>
                  )}
                </li>
              ))}
            </ul>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

function ClassifiedResult({ result }: { result: ClassifiedValidation }) {
  // Answers without `requested` list only the payload's portals.
  const asked = result.portals.filter((portal) => portal.requested !== false);
  const others = result.portals.filter((portal) => portal.requested === false);
  const refused = asked.filter((portal) => !portal.accepted);
  const summary =
    result.errors.length > 0
      ? `Not valid: ${result.errors.length} error${result.errors.length === 1 ? '' : 's'}${
          result.rulesChecked === false ? "; the portals' rules run once the schema passes" : ''
        }.`
      : refused.length > 0
        ? `The schema passes, but ${refused.map((portal) => portal.portal).join(', ')} would refuse it.`
        : 'Valid: the schema passes and every portal it asks for would accept it.';
  return (
    <>
      <p class={result.valid ? 'ok' : 'bad'}>
        <strong>{summary}</strong>
      </p>
      {result.errors.length > 0 ? <ErrorsTable errors={result.errors} caption="Errors" /> : null}
      {asked.length > 0 ? (
        <>
          <h3>The portals it asks for</h3>
          <PortalList portals={asked} />
        </>
      ) : null}
      {others.length > 0 ? (
        <>
          <h3>The other portals</h3>
          <PortalList portals={others} />
        </>
      ) : null}
    </>
  );
}

function ListingResult({ result }: { result: ListingValidation }) {
  return (
    <>
      <p class={result.valid ? 'ok' : 'bad'}>
        <strong>
          {result.valid
            ? 'Valid: the schema and the 21 rules pass.'
            : `Not valid: ${result.errors.length} error${result.errors.length === 1 ? '' : 's'}.`}
        </strong>
      </p>
      {result.errors.length > 0 ? <ErrorsTable errors={result.errors} caption="Errors" /> : null}
      {result.warnings.length > 0 ? (
        <>
          <h3>Warnings (they do not block)</h3>
          <ul>
            {result.warnings.map((warning) => (
              <li key={`${warning.type}|${warning.message}`}>
                <strong>{warning.type}</strong>: {warning.message}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}

export function ValidatePage() {
  const session = useSession();
  const kinds: Kind[] = [];
  if (holds(session, 'caas')) kinds.push('classified');
  if (holds(session, 'clim')) kinds.push('listing');
  const [kind, setKind] = useState<Kind>(kinds[0] ?? 'classified');
  const [text, setText] = useState('');
  const validation = useAction<{ kind: 'classified'; result: ClassifiedValidation } | { kind: 'listing'; result: ListingValidation }>();
  const [localError, setLocalError] = useState<string>();

  async function insertExample() {
    setLocalError(undefined);
    try {
      const example = kind === 'classified' ? CLASSIFIED_EXAMPLE : await listingExample();
      setText(JSON.stringify(example, null, 2));
    } catch (error) {
      setLocalError(`No example could be loaded: ${error instanceof Error ? error.message : String(error)}.`);
    }
  }

  function validate(event: Event) {
    event.preventDefault();
    setLocalError(undefined);
    validation.clear();
    try {
      JSON.parse(text);
    } catch (error) {
      setLocalError(`The payload is not JSON: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    void validation.run(async () =>
      kind === 'classified'
        ? { kind, result: await call<ClassifiedValidation>('POST', '/caas/classifieds/validate', undefined, { rawBody: text }) }
        : { kind, result: await call<ListingValidation>('POST', '/clim/listings/validate', undefined, { rawBody: text }) },
    );
  }

  if (kinds.length === 0)
    return (
      <Page title="Try a payload">
        <p>Your client holds neither the classifieds API nor the listing import.</p>
      </Page>
    );

  const result = validation.result;
  return (
    <Page title="Try a payload">
      <p>
        Paste a {kinds.join(' or a ')} and press Validate: it goes through the same checks as a write (the schema, then the business rules
        of every portal) and nothing is written.
      </p>
      <form onSubmit={validate}>
        {kinds.length > 1 ? (
          <fieldset class="inline">
            <legend>Payload of</legend>
            {kinds.map((option) => (
              <label class="check" key={option}>
                <input
                  type="radio"
                  name="kind"
                  value={option}
                  checked={kind === option}
                  onChange={() => {
                    setKind(option);
                    validation.clear();
                  }}
                />
                {option === 'classified' ? 'a classified' : 'a listing'}
              </label>
            ))}
          </fieldset>
        ) : null}
        <label for="payload">Payload (JSON)</label>
        <textarea
          id="payload"
          name="payload"
          rows={18}
          spellcheck={false}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          required
        />
        <div class="form-actions">
          <button type="submit" class="primary" disabled={validation.busy}>
            Validate
          </button>
          <button type="button" onClick={insertExample}>
            Insert an example {kind}
          </button>
        </div>
      </form>
      <section aria-labelledby="result-heading" aria-live="polite" class="result">
        <h2 id="result-heading">Result</h2>
        {localError ? (
          <p class="bad" role="alert">
            {localError}
          </p>
        ) : null}
        {validation.busy ? <p role="status">Validating…</p> : null}
        {validation.error !== undefined ? <ProblemView error={validation.error} /> : null}
        {result?.kind === 'classified' ? <ClassifiedResult result={result.result} /> : null}
        {result?.kind === 'listing' ? <ListingResult result={result.result} /> : null}
        {!result && !validation.busy && validation.error === undefined && !localError ? <p class="muted">Nothing validated yet.</p> : null}
      </section>
    </Page>
  );
}
