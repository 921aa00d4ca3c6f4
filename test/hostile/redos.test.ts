/*
 * Every regular expression applied to client text runs in linear time, as recheck (a ReDoS checker:
 * automata theory where the pattern allows, fuzzing otherwise) judges it:
 * - every regular expression literal, RegExp(...) and implicit RegExp (String#match, matchAll or
 *   search with a string) in src/, found by parsing with the TypeScript compiler, not by grep; a
 *   RegExp whose source is not a literal fails, since its pattern cannot be checked;
 * - every `pattern` (and `patternProperties` name) of the schemas of every route of the running app
 *   and of the shared schemas they refer to: Ajv compiles them into RegExps applied to the body,
 *   query, parameters and headers;
 * - every format our Ajv instances (platform/http/validation.ts) register: exactly the checkers
 *   of platform/http/formats.ts, whose own regular expressions are src/ literals, each refusing a
 *   value past its length bound before any of them runs; and the ajv-formats regular expression
 *   the email checker delegates to, read from ajv-formats' own source. A schema's format
 *   that is not registered fails.
 * Some of these never see client text (a regex on our own config), and are checked all the same:
 * telling them apart by review is what this test replaces.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { check, type Diagnostics } from 'recheck';
import ts from 'typescript';
import { FORMAT_BOUNDS, FORMATS } from '../../src/platform/http/formats.js';
import { routesOf } from '../../src/platform/http/routeTable.js';
import { newAjv } from '../../src/platform/http/validation.js';
import { FORMER_BARE_DOMAIN, FORMER_EMAIL } from '../fixtures/rule21.js';
import { REPO_ROOT, useServer } from '../helpers.js';

const fixture = useServer();

/** A pattern and where it was found (file:line or schema pointer). */
interface Found {
  where: string;
  source: string;
  flags: string;
}

// recheck's native backend answers most patterns in milliseconds; a few large ones (ajv-formats' URI) take seconds.
const CHECK_TIMEOUT_MS = 60_000;

/** recheck's verdicts, each pattern checked once however often it occurs. */
const verdicts = new Map<string, Promise<Diagnostics>>();

function verdict(source: string, flags: string): Promise<Diagnostics> {
  const key = `${flags}/${source}`;
  let answer = verdicts.get(key);
  if (answer === undefined) {
    answer = check(source, flags, { timeout: CHECK_TIMEOUT_MS });
    verdicts.set(key, answer);
  }
  return answer;
}

/** What is wrong with each pattern that is not proven safe: where, the complexity, recheck's attack string. */
async function unsafe(found: readonly Found[]): Promise<string[]> {
  const problems: string[] = [];
  // Two at a time: the machine has two cores, and other test files run beside this one.
  for (let i = 0; i < found.length; i += 2) {
    const pair = found.slice(i, i + 2);
    const results = await Promise.all(pair.map((one) => verdict(one.source, one.flags)));
    for (const [index, result] of results.entries()) {
      const one = pair[index]!;
      const pattern = `/${one.source}/${one.flags}`;
      if (result.status === 'vulnerable') {
        problems.push(`${one.where}: ${pattern} is ${result.complexity.summary}; attack string: ${result.attack.pattern}`);
      } else if (result.status === 'unknown') {
        problems.push(`${one.where}: ${pattern} could not be checked (${JSON.stringify(result.error)})`);
      }
    }
  }
  return problems;
}

// --- src/ -------------------------------------------------------------------------------------------

function sourceFiles(): string[] {
  const config = ts.readConfigFile(path.join(REPO_ROOT, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, REPO_ROOT);
  return parsed.fileNames.filter((file) => path.relative(REPO_ROOT, file).startsWith(`src${path.sep}`));
}

/** A literal's text, or undefined when the expression is anything but a string literal. */
function literalText(node: ts.Expression | undefined): string | undefined {
  if (node === undefined) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  return undefined;
}

function splitLiteral(text: string): { source: string; flags: string } {
  const slash = text.lastIndexOf('/');
  return { source: text.slice(1, slash), flags: text.slice(slash + 1) };
}

/** Every regular expression src/ makes, and every RegExp call whose pattern is not a literal. */
function regexesOfSource(): { found: Found[]; dynamic: string[] } {
  const files = sourceFiles();
  const program = ts.createProgram(files, { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, noEmit: true });
  const checker = program.getTypeChecker();
  const found: Found[] = [];
  const dynamic: string[] = [];
  for (const file of files) {
    const sourceFile = program.getSourceFile(file);
    if (sourceFile === undefined) throw new Error(`${file} is not in the program`);
    const where = (node: ts.Node): string => {
      const { line } = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
      return `${path.relative(REPO_ROOT, file)}:${line + 1}`;
    };
    const visit = (node: ts.Node): void => {
      if (ts.isRegularExpressionLiteral(node)) {
        found.push({ where: where(node), ...splitLiteral(node.text) });
      } else if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.expression.getText(sourceFile) === 'RegExp') {
        const [sourceArg, flagsArg] = node.arguments ?? [];
        const source =
          sourceArg !== undefined && ts.isRegularExpressionLiteral(sourceArg)
            ? splitLiteral(sourceArg.text).source
            : literalText(sourceArg);
        const flags = flagsArg === undefined ? '' : literalText(flagsArg);
        if (source === undefined || flags === undefined) dynamic.push(`${where(node)}: ${node.getText(sourceFile)}`);
        else found.push({ where: where(node), source, flags });
      } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        // String#match, matchAll and search turn a string argument into a RegExp.
        const method = node.expression.name.text;
        const argument = node.arguments[0];
        const receiver = checker.getTypeAtLocation(node.expression.expression);
        if (['match', 'matchAll', 'search'].includes(method) && argument !== undefined && receiver.flags & ts.TypeFlags.StringLike) {
          const type = checker.getTypeAtLocation(argument);
          if (type.flags & ts.TypeFlags.StringLike) {
            const source = literalText(argument);
            if (source === undefined) dynamic.push(`${where(node)}: ${node.getText(sourceFile)}`);
            else found.push({ where: where(node), source, flags: method === 'matchAll' ? 'g' : '' });
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
  }
  return { found, dynamic };
}

// --- schemas ------------------------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every `pattern`, `patternProperties` name and `format` in a schema, each with its JSON pointer. */
function walkSchema(schema: unknown, where: string, patterns: Found[], formats: Map<string, string>): void {
  const stack: { node: unknown; pointer: string }[] = [{ node: schema, pointer: '' }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { node, pointer } = top;
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) stack.push({ node: item, pointer: `${pointer}/${index}` });
      continue;
    }
    if (!isRecord(node)) continue;
    if (typeof node.pattern === 'string') patterns.push({ where: `${where}#${pointer}/pattern`, source: node.pattern, flags: 'u' });
    if (isRecord(node.patternProperties)) {
      for (const name of Object.keys(node.patternProperties)) {
        patterns.push({ where: `${where}#${pointer}/patternProperties`, source: name, flags: 'u' });
      }
    }
    if (typeof node.format === 'string' && !formats.has(node.format)) formats.set(node.format, `${where}#${pointer}/format`);
    for (const [member, child] of Object.entries(node)) {
      // Examples and defaults are data, not schemas; `properties` names are not patterns.
      if (member !== 'example' && member !== 'examples' && member !== 'default' && member !== 'enum' && member !== 'const') {
        stack.push({ node: child, pointer: `${pointer}/${member.replace(/~/g, '~0').replace(/\//g, '~1')}` });
      }
    }
  }
}

// --- ajv-formats ----------------------------------------------------------------------------------------

/**
 * The regular expressions each ajv-formats format runs, read from its source: the format's entry
 * in fullFormats (what addFormats adds by default) and every top-level function or constant it
 * reaches by name.
 */
function formatRegexes(): Map<string, Found[]> {
  const file = createRequire(import.meta.url).resolve('ajv-formats/dist/formats.js');
  const text = ts.sys.readFile(file);
  if (text === undefined) throw new Error(`cannot read ${file}`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const declarations = new Map<string, ts.Node>();
  let fullFormats: ts.ObjectLiteralExpression | undefined;
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name) declarations.set(statement.name.text, statement);
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name) && declaration.initializer) declarations.set(declaration.name.text, declaration.initializer);
      }
    }
    if (
      ts.isExpressionStatement(statement) &&
      ts.isBinaryExpression(statement.expression) &&
      statement.expression.left.getText(source) === 'exports.fullFormats' &&
      ts.isObjectLiteralExpression(statement.expression.right)
    ) {
      fullFormats = statement.expression.right;
    }
  }
  if (fullFormats === undefined) throw new Error('ajv-formats: exports.fullFormats not found');
  const byFormat = new Map<string, Found[]>();
  for (const property of fullFormats.properties) {
    if (!(ts.isPropertyAssignment(property) || ts.isShorthandPropertyAssignment(property))) continue;
    const name = ts.isStringLiteral(property.name) ? property.name.text : property.name.getText(source);
    const found: Found[] = [];
    const seen = new Set<ts.Node>();
    const visit = (node: ts.Node): void => {
      if (ts.isRegularExpressionLiteral(node)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push({ where: `format "${name}": ajv-formats/dist/formats.js:${line + 1}`, ...splitLiteral(node.text) });
      }
      if (ts.isIdentifier(node)) {
        const target = declarations.get(node.text);
        if (target !== undefined && !seen.has(target)) {
          seen.add(target);
          visit(target);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(property);
    byFormat.set(name, found);
  }
  return byFormat;
}

// --- the checks ---------------------------------------------------------------------------------------

describe('regular expressions on client text run in linear time (recheck)', () => {
  let schemaPatterns: Found[] = [];
  const formats = new Map<string, string>();

  before(async () => {
    await fixture.ready();
    const app = fixture.server.services.app;
    assert.ok(app, 'the server runs an HTTP app');
    const patterns: Found[] = [];
    for (const route of routesOf(app)) {
      for (const part of ['body', 'querystring', 'params', 'headers'] as const) {
        const schema = route.schema?.[part];
        if (schema !== undefined) walkSchema(schema, `${route.method} ${route.url} ${part}`, patterns, formats);
      }
    }
    for (const [id, schema] of Object.entries(app.getSchemas())) walkSchema(schema, `schema ${id}`, patterns, formats);
    schemaPatterns = patterns;
  });

  it('is sensitive: the checker calls the former rule-21 patterns vulnerable and names an attack string', async () => {
    const former = [
      { where: 'former rule 21 email', source: FORMER_EMAIL.source, flags: FORMER_EMAIL.flags },
      { where: 'former rule 21 bare domain', source: FORMER_BARE_DOMAIN.source, flags: FORMER_BARE_DOMAIN.flags },
    ];
    const problems = await unsafe(former);
    assert.equal(problems.length, 2, problems.join('\n'));
    for (const [index, problem] of problems.entries()) {
      assert.match(problem, new RegExp(`^${former[index]!.where}: .* is 2nd degree polynomial.*; attack string: .+`));
    }
  });

  it('every regular expression in src/ is a literal, and recheck proves each safe', async () => {
    const { found, dynamic } = regexesOfSource();
    assert.deepEqual(dynamic, [], 'a RegExp whose pattern is not a literal cannot be checked: write it as a literal');
    assert.ok(found.length > 30, `only ${found.length} regular expressions found in src/`);
    assert.ok(
      found.some((one) => one.where.startsWith(`src${path.sep}apis${path.sep}listings${path.sep}rules.ts:`)),
      'rule 21 is among them',
    );
    assert.deepEqual(await unsafe(found), []);
  });

  it('every pattern of the route schemas is safe', async () => {
    assert.ok(schemaPatterns.length >= 10, `only ${schemaPatterns.length} patterns found`);
    assert.ok(
      schemaPatterns.some((one) => one.source === '^[A-Za-z0-9._:-]+$'),
      'the listing import media id pattern is among them',
    );
    assert.deepEqual(await unsafe(schemaPatterns), []);
  });

  it('every format the schemas use is one of ours, and the regular expressions each runs are safe', async () => {
    assert.ok(formats.size >= 3, `only ${[...formats.keys()].join(', ')} used`);
    for (const part of ['body', 'text'] as const) {
      const registered = newAjv(part).formats;
      assert.deepEqual(Object.keys(registered).sort(), Object.keys(FORMATS).sort(), `the ${part} instance registers only our formats`);
      for (const [name, check] of Object.entries(FORMATS)) assert.equal(registered[name], check, `${part}: ${name} is our checker`);
    }
    for (const [format, where] of formats) assert.ok(Object.hasOwn(FORMATS, format), `${where}: "${format}" is not one of our formats`);
    // The ajv-formats checks ours delegate to, on values no longer than their bounds.
    const byFormat = formatRegexes();
    const found = byFormat.get('email') ?? [];
    assert.ok(found.length >= 1, 'the email regular expression of ajv-formats is found');
    assert.deepEqual(await unsafe(found), []);
  });

  it('each format refuses a value past its bound at once, whatever it holds', () => {
    const filler: Record<string, string> = {
      date: `2026-11-22${'0'.repeat(1_000_000)}`,
      'date-time': `2026-11-22${'T'.repeat(1_040_000)}`,
      'iso-date-time': `2026-11-22${'T'.repeat(1_040_000)}`,
      uuid: `urn:uuid:${'0'.repeat(1_000_000)}`,
      uri: `https://example.com/${'a'.repeat(1_000_000)}`,
      email: `${'a'.repeat(1_000_000)}@example.com`,
    };
    for (const [name, check] of Object.entries(FORMATS)) {
      const value = filler[name];
      assert.ok(value !== undefined, `a long value for ${name}`);
      const started = performance.now();
      assert.equal(check(value), false, name);
      assert.ok(performance.now() - started < 5, `${name} took ${performance.now() - started} ms`);
      assert.ok(value.length > FORMAT_BOUNDS[name as keyof typeof FORMAT_BOUNDS]);
    }
  });
});
