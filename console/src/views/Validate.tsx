/*
 * Try a payload: a classified or a listing pasted and checked by the APIs' validate extensions,
 * which run the write path's own schema and business rules and write nothing. The answer lists
 * every schema error and, for a classified, every portal's verdict with the rules it would break.
 * An OpenImmo XML is not validated but imported (the OpenImmo intake has no dry run): it is posted
 * to the listing import, followed until the worker has applied it, and each object's outcome shown.
 */
import { useState } from 'preact/hooks';
import { call } from '../api';
import { ImportFollow } from '../components/ImportOutcome';
import { ProblemView } from '../components/Problem';
import { Page } from '../components/Page';
import { StatusBadge } from '../components/StatusBadge';
import { TableRegion } from '../components/Table';
import { useAction } from '../hooks/useAction';
import { holds, useSession } from '../session';
import type { ClassifiedValidation, FieldError, ImportAccepted, ListingValidation } from '../types';

type Kind = 'classified' | 'listing' | 'openimmo';

const KIND_LABELS: Record<Kind, string> = { classified: 'a classified', listing: 'a listing', openimmo: 'an OpenImmo XML' };

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

/** A TEIL transfer of one flat to rent, as examples/openimmo/berlin.xml holds it but for its picture. */
const OPENIMMO_EXAMPLE = `<?xml version="1.0" encoding="UTF-8"?>
<openimmo>
  <uebertragung art="OFFLINE" umfang="TEIL" modus="CHANGE" version="1.2.7" sendersoftware="MyCrm" senderversion="1.0"/>
  <anbieter>
    <anbieternr>demo-0001</anbieternr>
    <firma>Demo Immobilien GmbH</firma>
    <openimmo_anid>demo-0001</openimmo_anid>
    <immobilie>
      <objektkategorie>
        <nutzungsart WOHNEN="true" GEWERBE="false"/>
        <vermarktungsart KAUF="false" MIETE_PACHT="true"/>
        <objektart>
          <wohnung wohnungtyp="ETAGE"/>
        </objektart>
      </objektkategorie>
      <geo>
        <plz>10827</plz>
        <ort>Berlin</ort>
        <strasse>Hauptstraße</strasse>
        <hausnummer>12</hausnummer>
        <land iso_land="DEU"/>
        <etage>2</etage>
      </geo>
      <kontaktperson>
        <email_direkt>anna.schmidt@example.org</email_direkt>
        <name>Schmidt</name>
        <vorname>Anna</vorname>
      </kontaktperson>
      <preise>
        <kaltmiete>1250</kaltmiete>
        <warmmiete>1530</warmmiete>
        <nebenkosten>200</nebenkosten>
        <heizkosten>80</heizkosten>
        <provisionspflichtig>false</provisionspflichtig>
        <waehrung iso_waehrung="EUR"/>
        <kaution>3750</kaution>
      </preise>
      <flaechen>
        <wohnflaeche>85</wohnflaeche>
        <anzahl_zimmer>3</anzahl_zimmer>
      </flaechen>
      <freitexte>
        <objekttitel>Altbauwohnung mit Balkon in Schöneberg</objekttitel>
        <objektbeschreibung>Drei helle Zimmer, Dielenboden, Balkon zum Hof.</objektbeschreibung>
      </freitexte>
      <verwaltung_techn>
        <objektnr_intern>1001</objektnr_intern>
        <objektnr_extern>OI-1001</objektnr_extern>
        <aktion/>
        <openimmo_obid>demo-0001_1001_OI-1001</openimmo_obid>
        <stand_vom>2026-11-01</stand_vom>
      </verwaltung_techn>
    </immobilie>
  </anbieter>
</openimmo>
`;

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
  if (holds(session, 'clim')) kinds.push('listing', 'openimmo');
  const [kind, setKind] = useState<Kind>(kinds[0] ?? 'classified');
  const [text, setText] = useState('');
  const validation = useAction<
    | { kind: 'classified'; result: ClassifiedValidation }
    | { kind: 'listing'; result: ListingValidation }
    | { kind: 'openimmo'; result: ImportAccepted }
  >();
  const [localError, setLocalError] = useState<string>();

  async function insertExample() {
    setLocalError(undefined);
    try {
      if (kind === 'openimmo') setText(OPENIMMO_EXAMPLE);
      else setText(JSON.stringify(kind === 'classified' ? CLASSIFIED_EXAMPLE : await listingExample(), null, 2));
    } catch (error) {
      setLocalError(`No example could be loaded: ${error instanceof Error ? error.message : String(error)}.`);
    }
  }

  function validate(event: Event) {
    event.preventDefault();
    setLocalError(undefined);
    validation.clear();
    if (kind === 'openimmo') {
      // The intake judges the file itself: no dry run, a 202 and then the worker's outcome.
      void validation.run(async () => ({
        kind,
        result: await call<ImportAccepted>('POST', '/clim/openimmo-imports', undefined, { rawBody: text, contentType: 'application/xml' }),
      }));
      return;
    }
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
  const checked = kinds.filter((option) => option !== 'openimmo');
  const importing = kind === 'openimmo';
  return (
    <Page title="Try a payload">
      <p>
        Paste {checked.map((option) => KIND_LABELS[option]).join(' or ')} and press Validate: it goes through the same checks as a write
        (the schema, then the business rules of every portal) and nothing is written.
        {kinds.includes('openimmo') ? ' An OpenImmo XML is imported instead: see its listings in OpenImmo imports.' : null}
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
                {KIND_LABELS[option]}
              </label>
            ))}
          </fieldset>
        ) : null}
        {importing ? (
          <p class="notice" id="import-notice">
            <strong>This imports, it is not a dry run.</strong> Each object of the XML becomes a listing of agency {session.agency} in the{' '}
            {session.environment} environment, created, updated or deleted (<code>aktion</code>) as the file says; a VOLL transfer also
            deletes the provider's OpenImmo listings it does not name. Pictures come in a ZIP, which the API takes:{' '}
            <code>POST {'{root}'}/openimmo-imports</code>.
          </p>
        ) : null}
        <label for="payload">{importing ? 'Payload (OpenImmo XML)' : 'Payload (JSON)'}</label>
        <textarea
          id="payload"
          name="payload"
          rows={18}
          spellcheck={false}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          aria-describedby={importing ? 'import-notice' : undefined}
          required
        />
        <div class="form-actions">
          <button type="submit" class="primary" disabled={validation.busy}>
            {importing ? 'Import' : 'Validate'}
          </button>
          <button type="button" onClick={insertExample}>
            Insert an example {importing ? 'OpenImmo XML' : kind}
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
        {validation.busy ? <p role="status">{importing ? 'Sending the file…' : 'Validating…'}</p> : null}
        {validation.error !== undefined ? <ProblemView error={validation.error} /> : null}
        {result?.kind === 'classified' ? <ClassifiedResult result={result.result} /> : null}
        {result?.kind === 'listing' ? <ListingResult result={result.result} /> : null}
        {result?.kind === 'openimmo' ? (
          <>
            <p>
              Imported as{' '}
              <a href={`/console/openimmo/${encodeURIComponent(result.result.importId)}`}>
                import <code>{result.result.importId}</code>
              </a>
              .
            </p>
            <ImportFollow key={result.result.importId} importId={result.result.importId} />
          </>
        ) : null}
        {!result && !validation.busy && validation.error === undefined && !localError ? (
          <p class="muted">{importing ? 'Nothing imported yet.' : 'Nothing validated yet.'}</p>
        ) : null}
      </section>
    </Page>
  );
}
