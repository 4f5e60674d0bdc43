// Which methods each registered path accepts, so a request for a known path with another method can
// be answered 405 with an Allow header instead of 404. Fastify's own hasRoute/findRoute look routes
// up by their pattern, not by a concrete request path, so the frame keeps this registry from onRoute.
import type { RouteOptions } from 'fastify';

interface RegisteredPath {
  pattern: RegExp;
  methods: Set<string>;
}

export class RouteMethodRegistry {
  private readonly paths = new Map<string, RegisteredPath>();

  /** onRoute hook body: called once per route (including the HEAD routes Fastify derives from GETs). */
  record(route: Pick<RouteOptions, 'method' | 'url'>): void {
    let entry = this.paths.get(route.url);
    if (!entry) {
      entry = { pattern: compileRoutePattern(route.url), methods: new Set() };
      this.paths.set(route.url, entry);
    }
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) entry.methods.add(method.toUpperCase());
  }

  /** The methods any route matching `path` accepts, sorted; empty when no route matches. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const entry of this.paths.values()) {
      if (entry.pattern.test(path)) for (const method of entry.methods) methods.add(method);
    }
    return [...methods].sort();
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A find-my-way route pattern as a RegExp over a request path: `:name` matches one path segment,
 * `:name(regex)` its regex, `*` the rest of the path, `::` a literal colon.
 */
export function compileRoutePattern(url: string): RegExp {
  let source = '';
  let i = 0;
  while (i < url.length) {
    const char = url[i];
    if (char === ':' && url[i + 1] === ':') {
      source += ':';
      i += 2;
    } else if (char === ':') {
      const name = /^:[A-Za-z0-9_$]*/.exec(url.slice(i))![0];
      i += name.length;
      if (url[i] === '(') {
        const end = closingParen(url, i);
        source += `(${url
          .slice(i + 1, end)
          .replace(/^\^/, '')
          .replace(/\$$/, '')})`;
        i = end + 1;
      } else {
        // A parameter runs to the end of its segment, or lazily up to a static suffix (`:name.json`).
        source += '([^/]+?)';
      }
    } else if (char === '*') {
      source += '(.*)';
      i += 1;
    } else {
      source += escapeRegExp(char);
      i += 1;
    }
  }
  return new RegExp(`^${source}$`);
}

function closingParen(url: string, open: number): number {
  let depth = 0;
  for (let i = open; i < url.length; i++) {
    if (url[i] === '\\') i++;
    else if (url[i] === '(') depth++;
    else if (url[i] === ')' && --depth === 0) return i;
  }
  return url.length - 1;
}
