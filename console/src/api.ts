/*
 * Calls to the console's backend (/console/api/...): JSON in and out, the session's CSRF token on
 * every unsafe call, and any answer outside 2xx turned into an ApiProblem carrying the problem the
 * backend sent (or one made from the status when the body is not a problem).
 */
import type { ProblemBody } from './types';

export const API_BASE = '/console/api';

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly problem: ProblemBody,
  ) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`);
  }
}

let csrfToken = '';
let onSignedOut: () => void = () => undefined;

/** The token the backend gave the session; sent as x-csrf-token on POST, PUT and DELETE. */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** What to do when a call answers 401: the session ended (expired, or signed out elsewhere). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/** A query string of the values that are set, in order. */
export function query(values: Record<string, string | number | boolean | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values))
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

async function problemOf(response: Response): Promise<ProblemBody> {
  const text = await response.text();
  try {
    const body: unknown = JSON.parse(text);
    if (body !== null && typeof body === 'object') return body;
  } catch {
    // Not JSON (a proxy's error page, say): the status speaks for it.
  }
  return { title: response.statusText || 'Request failed', status: response.status, detail: text.slice(0, 500) || undefined };
}

/**
 * `method` on `/console/api` + `path`; the parsed JSON answer (undefined for 204). `session` marks
 * the calls that manage the session itself, whose 401 is an answer and not a lost session;
 * `rawBody` is sent instead of `body` serialised, as `contentType` (JSON unless told: an OpenImmo
 * file goes as application/xml).
 */
export async function call<T>(
  method: string,
  path: string,
  body?: unknown,
  options: { session?: boolean; rawBody?: string; contentType?: string } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json, application/problem+json' };
  // A pasted payload goes as typed, so the backend judges exactly those bytes (a member given twice, say).
  const sent = options.rawBody ?? (body === undefined ? undefined : JSON.stringify(body));
  if (sent !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  if (method !== 'GET' && method !== 'HEAD' && csrfToken !== '') headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(API_BASE + path, {
      method,
      headers,
      body: sent,
      credentials: 'same-origin',
    });
  } catch (error) {
    throw new ApiProblem(0, { title: 'No answer', detail: `immogate could not be reached (${String(error)}).` });
  }
  if (!response.ok) {
    const problem = await problemOf(response);
    if (response.status === 401 && !options.session) onSignedOut();
    throw new ApiProblem(response.status, problem);
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  // The body is the backend's JSON, typed by the contract the caller names.
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

export const get = <T>(path: string) => call<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => call<T>('POST', path, body);
export const put = <T>(path: string, body?: unknown) => call<T>('PUT', path, body);
export const del = <T>(path: string) => call<T>('DELETE', path);

/** Encodes one path segment (ids come from people and from the APIs). */
export function seg(value: string | number): string {
  return encodeURIComponent(String(value));
}
