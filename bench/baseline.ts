/*
 * The baselines, each in a process of its own like immogate: a bare node:http server that reads
 * the body, parses the JSON and answers 202 with a small JSON; with BENCH_INSERT=1 it first
 * INSERTs the body as one row through a pg Pool of immogate's default size (the durable floor).
 * With BENCH_READ=1 it is the read floor instead: every request is answered 200 with a ~5 KB
 * jsonb body read by its primary key through the same kind of Pool.
 */
import http from 'node:http';
import pg from 'pg';
import { classifiedJson } from './body.js';

const insert = process.env.BENCH_INSERT === '1';
const read = process.env.BENCH_READ === '1';
const pool =
  insert || read
    ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) })
    : undefined;
if (pool) {
  await pool.query('CREATE SCHEMA IF NOT EXISTS bench');
  await pool.query(
    'CREATE TABLE IF NOT EXISTS bench.baseline (id bigserial PRIMARY KEY, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
  );
}
// The row the read floor answers with: the classified the write scenarios post, as jsonb.
const readId = read
  ? (await pool!.query<{ id: string }>('INSERT INTO bench.baseline (body) VALUES ($1) RETURNING id', [classifiedJson('READ')])).rows[0]!.id
  : undefined;

const answer = JSON.stringify({ accepted: true });

function readOne(response: http.ServerResponse): void {
  // As text, the way immogate's GET sends the stored payload: no parse and serialise in between.
  pool!.query<{ body: string }>('SELECT body::text AS body FROM bench.baseline WHERE id = $1', [readId]).then(
    ({ rows }) => response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(rows[0]!.body),
    () => response.writeHead(500).end(),
  );
}

const server = http.createServer((request, response) => {
  if (read) {
    request.resume();
    readOne(response);
    return;
  }
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
