/*
 * The baselines, each in a process of its own like immogate: a bare node:http server that reads
 * the body, parses the JSON and answers 202 with a small JSON; with BENCH_INSERT=1 it first
 * INSERTs the body as one row through a pg Pool of immogate's default size (the durable floor).
 */
import http from 'node:http';
import pg from 'pg';

const insert = process.env.BENCH_INSERT === '1';
const pool = insert
  ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) })
  : undefined;
if (pool) {
  await pool.query('CREATE SCHEMA IF NOT EXISTS bench');
  await pool.query(
    'CREATE TABLE IF NOT EXISTS bench.baseline (id bigserial PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
  );
}

const answer = JSON.stringify({ accepted: true });

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const fail = (status: number) => response.writeHead(status).end();
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return fail(400);
    }
    const reply = () => response.writeHead(202, { 'content-type': 'application/json' }).end(answer);
    if (!pool) return reply();
    pool.query('INSERT INTO bench.baseline (body) VALUES ($1)', [body]).then(reply, () => fail(500));
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.send!({ address: `http://127.0.0.1:${address.port}` });
});

process.on('message', (message) => {
  if (message === 'stop') server.close(() => void (pool?.end() ?? Promise.resolve()).then(() => process.exit(0)));
  server.closeAllConnections();
});
