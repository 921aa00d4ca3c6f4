/*
 * Browser code of the docs page (/docs): Swagger UI plugins. @fastify/swagger-ui writes them into
 * the page with Function.prototype.toString, so each function here uses nothing but its
 * parameters and the browser's globals: no import, no variable or helper from outside itself.
 *
 * The token service wants two parameters besides the client's id and secret, which Swagger UI's
 * client-credentials dialog has no field for: `audience`, the root URL of the API and environment
 * called (the server selected on the page), and `intermediary_id`, the agency. The plugin adds an
 * intermediary_id field to that dialog and both parameters to the token request's form body,
 * where RFC 6749 puts a token request's parameters; the token endpoint stays as it is.
 */

/** What the plugin uses of React and of Swagger UI's system (the parameter of a plugin). */
interface ReactApi {
  createElement(type: unknown, props?: object | null, ...children: unknown[]): unknown;
  useState<T>(initial: T): [T, (value: T) => void];
}
interface ImmutableMap {
  get(key: string): unknown;
}
interface SwaggerSystem {
  React: ReactApi;
  oas3Selectors: { selectedServer(): string | undefined };
  errActions: { newAuthErr(error: { authId: string; level: string; source: string; message: string }): void };
}
interface TokenRequest {
  body?: unknown;
  name: string;
}
interface BrowserStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}
interface OAuthDialogProps {
  schema: ImmutableMap;
}
/** What a plugin gives Swagger UI (the parts these use). */
interface PluginParts {
  statePlugins?: Record<string, { wrapActions?: Record<string, unknown> }>;
  wrapComponents?: Record<string, unknown>;
}

/** Swagger UI's own plugin that loads documents by URL, kept beside ours (giving `plugins` replaces the page's list). */
export function downloadUrlPlugin(system: unknown): PluginParts {
  // The bundle's global, defined by the script the page loads before this one runs.
  const bundle = Reflect.get(globalThis, 'SwaggerUIBundle') as { plugins: { DownloadUrl(system: unknown): PluginParts } };
  return bundle.plugins.DownloadUrl(system);
}

/** The intermediary_id field of the client-credentials dialog and the token request's audience and intermediary_id. */
export function clientCredentialsPlugin(system: SwaggerSystem): PluginParts {
  const React = system.React;
  const KEY = 'immogate.intermediary_id';
  // The page's session storage: the agency typed once serves every document of the page.
  const storage = Reflect.get(globalThis, 'sessionStorage') as BrowserStorage;
  const clientCredentials = (schema: ImmutableMap) =>
    ['clientCredentials', 'client_credentials', 'application'].includes(String(schema.get('flow')));

  function TokenParameters() {
    const [intermediary, setIntermediary] = React.useState(storage.getItem(KEY) ?? '');
    return React.createElement(
      'div',
      { className: 'immogate-token-parameters' },
      React.createElement(
        'div',
        { className: 'wrapper' },
        React.createElement('label', { htmlFor: 'immogate_intermediary_id' }, 'intermediary_id (your agency):'),
        React.createElement(
          'section',
          null,
          React.createElement('input', {
            id: 'immogate_intermediary_id',
            type: 'text',
            value: intermediary,
            onChange: (event: { target: { value: string } }) => {
              setIntermediary(event.target.value);
              storage.setItem(KEY, event.target.value);
            },
          }),
        ),
      ),
      React.createElement(
        'p',
        null,
        'audience (the selected server): ',
        React.createElement('code', null, system.oas3Selectors.selectedServer() ?? ''),
      ),
    );
  }

  return {
    wrapComponents: {
      oauth2: (Original: unknown) => (props: OAuthDialogProps) =>
        clientCredentials(props.schema)
          ? React.createElement(
              'div',
              { className: 'immogate-client-credentials' },
              React.createElement(Original, props),
              React.createElement(TokenParameters, null),
            )
          : React.createElement(Original, props),
    },
    statePlugins: {
      auth: {
        wrapActions: {
          authorizeRequest: (original: (request: TokenRequest) => unknown) => (request: TokenRequest) => {
            const body = request.body;
            if (typeof body !== 'string' || !body.split('&').includes('grant_type=client_credentials')) return original(request);
            const intermediary = (storage.getItem(KEY) ?? '').trim();
            if (intermediary === '') {
              system.errActions.newAuthErr({
                authId: request.name,
                level: 'error',
                source: 'auth',
                message: 'intermediary_id is required: the agency you act for',
              });
              return undefined;
            }
            const audience = system.oas3Selectors.selectedServer() ?? '';
            const extra = `&audience=${encodeURIComponent(audience)}&intermediary_id=${encodeURIComponent(intermediary)}`;
            return original({ ...request, body: body + extra });
          },
        },
      },
    },
  };
}

/**
 * Places the plugin's fields among the dialog's own: the dialog's elements become items of one
 * column (its root box dissolved), and the scopes, errors and buttons move after the fields.
 */
export const DOCS_CSS = `
.immogate-client-credentials { display: flex; flex-direction: column; }
.immogate-client-credentials > div:first-child { display: contents; }
.immogate-client-credentials .immogate-token-parameters { order: 1; }
.immogate-client-credentials .scopes, .immogate-client-credentials .errors, .immogate-client-credentials .auth-btn-wrapper { order: 2; }
`;
