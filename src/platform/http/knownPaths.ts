/*
 * The methods the app serves at a path, for the 405's Allow: the route patterns as a tree of path
 * segments (static, `:parameter`, a final `*`), so that a path is read once, segment by segment,
 * whatever the number of routes. The former check split the path once per pattern: a 15,000-byte
 * path cost 45 ms, and a client pipelining such paths held every other request.
 */

interface Node {
  statics: Map<string, Node>;
  /** A `:parameter` segment: any segment but an empty one. */
  parameter?: Node;
  /** The methods of a final `*`: the rest of the path, whatever it is. */
  rest?: Set<string>;
  /** The methods of the patterns ending here. */
  methods?: Set<string>;
}

function node(): Node {
  return { statics: new Map() };
}

export class KnownPaths {
  private readonly root = node();
  /** The most segments of a pattern: a path with more can only match a `*`. */
  private depth = 0;

  add(pattern: string, methods: readonly string[]): void {
    const segments = pattern.split('/');
    this.depth = Math.max(this.depth, segments.length);
    let at = this.root;
    for (const [i, segment] of segments.entries()) {
      if (segment === '*' && i === segments.length - 1) {
        at.rest ??= new Set();
        for (const method of methods) at.rest.add(method);
        return;
      }
      if (segment.startsWith(':')) at = at.parameter ??= node();
      else {
        const next = at.statics.get(segment) ?? node();
        at.statics.set(segment, next);
        at = next;
      }
    }
    at.methods ??= new Set();
    for (const method of methods) at.methods.add(method);
  }

  /** Every method of every pattern `path` (no query) matches, sorted; none for a path no route serves. */
  methodsAt(path: string): string[] {
    // Segments past the deepest pattern are not needed (a `*` takes them unread), so they are not cut out.
    const segments = path.split('/', this.depth + 1);
    const found = new Set<string>();
    // Each node is reached by one way only, so the walk visits each node of the tree once at most.
    const pending: [Node, number][] = [[this.root, 0]];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      const [at, i] = next;
      if (i === segments.length) {
        for (const method of at.methods ?? []) found.add(method);
        continue;
      }
      for (const method of at.rest ?? []) found.add(method);
      const segment = segments[i] as string;
      const exact = at.statics.get(segment);
      if (exact) pending.push([exact, i + 1]);
      if (at.parameter && segment !== '') pending.push([at.parameter, i + 1]);
    }
    return [...found].sort();
  }
}
