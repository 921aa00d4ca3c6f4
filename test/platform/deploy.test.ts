/*
 * The files of deploy/: the Grafana dashboard and the Prometheus alerts use only metrics (and
 * label values) that /metrics of a running server has, the dashboard is a valid Grafana dashboard
 * model (test/fixtures/grafana-dashboard.schema.json) on a ${DS_PROMETHEUS} input, and promtool,
 * when installed (Debian's prometheus package; CI installs it), accepts the rules and passes
 * their unit tests (deploy/prometheus/alerts.test.yml).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import { http, REPO_ROOT, type TestServer, useServer } from '../helpers.js';

const DASHBOARD = path.join(REPO_ROOT, 'deploy', 'grafana', 'immogate.json');
const ALERTS = path.join(REPO_ROOT, 'deploy', 'prometheus', 'alerts.yml');
const ALERT_TESTS = path.join(REPO_ROOT, 'deploy', 'prometheus', 'alerts.test.yml');
// Ours and prom-client's default metrics; `up` is Prometheus's own.
const METRIC = /\b(?:immogate|nodejs|process)_[a-z0-9_]+\b/g;
// Grafana's placeholder for the data source chosen at import: a literal here, no template.
const INPUT = '$' + '{DS_PROMETHEUS}';
const LABEL_VALUE = /\b(stream|reason|state)="([^"]+)"/g;

interface Dashboard {
  __inputs: { name: string }[];
  panels: { type: string; title: string; datasource?: { uid: string }; targets?: { expr: string; datasource?: { uid: string } }[] }[];
  templating: { list: { datasource?: { uid: string }; definition?: string }[] };
}

const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as Dashboard;
const dashboardExpressions = [
  ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
  ...dashboard.templating.list.map((variable) => variable.definition ?? ''),
];
const alertsText = fs.readFileSync(ALERTS, 'utf8');

const fixture = useServer({ worker: true });
let server: TestServer;
let exposed: { metrics: Set<string>; text: string };

before(async () => {
  await fixture.ready();
  server = fixture.server;
  // A request first: a histogram's bucket series show once it has observed something.
  assert.equal((await http('GET', `${server.base}/health`)).status, 200);
  const result = await http('GET', `${server.base}/metrics`);
  assert.equal(result.status, 200);
  const metrics = new Set(
    result.text
      .split('\n')
      .filter((line) => line !== '')
      // A series' name, or the name a # TYPE line declares (a counter with labels has no series before its first count).
      .map((line) => /^(?:# TYPE )?([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line)?.[1] ?? line),
  );
  exposed = { metrics, text: result.text };
});

function missing(expressions: string[]): { metrics: string[]; labels: string[] } {
  const text = expressions.join('\n');
  const metrics = [...new Set([...text.matchAll(METRIC)].map((match) => match[0]))];
  const labels = [...new Set([...text.matchAll(LABEL_VALUE)].map((match) => match[0]))];
  return {
    metrics: metrics.filter((metric) => !exposed.metrics.has(metric)).sort(),
    labels: labels.filter((label) => !exposed.text.includes(label)).sort(),
  };
}

describe('deploy/grafana/immogate.json', () => {
  it('uses only metrics and label values that /metrics has', () => {
    assert.ok(dashboardExpressions.length >= 12, String(dashboardExpressions.length));
    assert.deepEqual(missing(dashboardExpressions), { metrics: [], labels: [] });
  });

  it('is a Grafana dashboard model whose panels and variables all query the DS_PROMETHEUS input', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'grafana-dashboard.schema.json'), 'utf8')) as object;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    assert.equal(validate(dashboard), true, JSON.stringify(validate.errors, null, 2));
    assert.deepEqual(
      dashboard.__inputs.map((input) => input.name),
      ['DS_PROMETHEUS'],
    );
    const uids = [
      ...dashboard.panels
        .filter((panel) => panel.type !== 'row')
        .flatMap((panel) => [panel.datasource, ...(panel.targets ?? []).map((target) => target.datasource)]),
      ...dashboard.templating.list.map((variable) => variable.datasource),
    ].map((datasource) => datasource?.uid);
    assert.deepEqual([...new Set(uids)], [INPUT]);
    const ids = dashboard.panels.map((panel) => (panel as { id?: number }).id);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(
      dashboard.panels.filter((panel) => panel.type !== 'row').map((panel) => panel.title),
      [
        'Requests by route',
        'Latency p95 by route',
        '5xx answers',
        'Requests refused',
        'Queue depth by stream',
        'Webhook deliveries',
        'Database availability',
        'Tokens issued',
        'Event loop lag',
        'Memory',
        'CPU',
      ],
    );
  });
});

describe('deploy/prometheus/alerts.yml', () => {
  it('uses only metrics and label values that /metrics has', () => {
    const expressions = [...alertsText.matchAll(/^\s+expr: (?:\|\n((?:\s{10}.*\n)+)|(.*)\n)/gm)].map(
      (match) => (match[1] ?? match[2]) as string,
    );
    assert.equal(expressions.length, 4);
    assert.deepEqual(missing(expressions), { metrics: [], labels: [] });
    assert.deepEqual(
      [...alertsText.matchAll(/^\s+- alert: (\w+)$/gm)].map((match) => match[1]),
      ['ImmogateQueueDepthGrowing', 'ImmogateWebhookDeliveriesFailing', 'ImmogateHighErrorRate', 'ImmogateDatabaseUnavailable'],
    );
  });

  const promtool = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((candidate) => fs.existsSync(candidate));
  const skip = promtool ? false : 'promtool is not installed (apt-get install prometheus; .ci/run installs it)';

  it('passes promtool check rules', { skip }, async () => {
    const { stdout } = await promisify(execFile)(promtool as string, ['check', 'rules', ALERTS]);
    assert.equal(stdout, `Checking ${ALERTS}\n  SUCCESS: 4 rules found\n\n`);
  });

  it('passes its unit tests with promtool test rules: each alert fires on the series it watches, and only then', { skip }, async () => {
    const { stdout } = await promisify(execFile)(promtool as string, ['test', 'rules', ALERT_TESTS]);
    assert.equal(stdout, `Unit Testing:  ${ALERT_TESTS}\n  SUCCESS\n\n`);
  });
});
