/*
 * The platform's own sealed columns, as an API module declares those of its tables: gathered here,
 * above the layers that own them (console sessions, idempotent answers, deliveries), so that the
 * sealing machinery (secrets/stored.ts) stays below the modules that seal with it.
 */
import { CONSOLE_TOKENS } from './console/sessions.js';
import { IDEMPOTENT_ANSWER } from './http/idempotency.js';
import { WEBHOOK_SECRET, type SealedColumn } from './secrets/stored.js';

/** The platform's own sealed columns; each API module declares those of its tables. */
export const PLATFORM_SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'signing_keys', column: 'private_jwk_sealed', key: 'kid', purpose: (kid) => `signing-key:${kid}`, clearColumn: 'private_jwk' },
  { table: 'blob_signing_keys', column: 'secret_sealed', key: 'id', purpose: () => 'blob-signing-key', clearColumn: 'secret' },
  // Deliveries are many: only those that may still be sent need their key at start.
  { table: 'webhook_deliveries', column: 'secret', key: 'id', purpose: () => WEBHOOK_SECRET, live: "state IN ('PENDING', 'FAILED')" },
  // The console's sessions hold their client's tokens.
  { table: 'console_sessions', column: 'tokens', key: 'id', purpose: () => CONSOLE_TOKENS, live: 'tokens_expire_at > now()' },
  // Answers kept for Idempotency-Key replays: a subscription's carries its webhook secret.
  { table: 'idempotency_keys', column: 'answer', key: 'claim', purpose: () => IDEMPOTENT_ANSWER, live: 'expires_at > now()' },
];
