// Method + path routing with `:param` segments. A static segment beats a parameter, so
// `POST /api/v1/agents/beacon` is never taken for `/api/v1/agents/:agent_id`. A path that
// exists under another method answers 405 with Allow; an unknown path answers 404.
import type { Route } from './types.ts';

interface CompiledRoute {
  route: Route;
  segments: string[];
  staticCount: number;
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

export class Router {
  private readonly bySegmentCount = new Map<number, CompiledRoute[]>();

  add(route: Route): void {
    const segments = split(route.pattern);
    const compiled = { route, segments, staticCount: segments.filter((s) => !s.startsWith(':')).length };
    const list = this.bySegmentCount.get(segments.length) ?? [];
    list.push(compiled);
    // Most specific first, so the first match under a method is the one to take.
    list.sort((a, b) => b.staticCount - a.staticCount);
    this.bySegmentCount.set(segments.length, list);
  }

  addAll(routes: Iterable<Route>): void {
    for (const route of routes) this.add(route);
  }

  match(method: string, path: string): RouteMatch {
    const parts = split(path);
    const candidates = this.bySegmentCount.get(parts.length);
    if (!candidates) return { kind: 'not_found' };
    const allow = new Set<string>();
    for (const candidate of candidates) {
      const params = matchSegments(candidate.segments, parts);
      if (!params) continue;
      if (candidate.route.method === method) return { kind: 'found', route: candidate.route, params };
      allow.add(candidate.route.method);
    }
    return allow.size > 0 ? { kind: 'method_not_allowed', allow: [...allow].sort() } : { kind: 'not_found' };
  }

  routes(): Route[] {
    return [...this.bySegmentCount.values()].flat().map((c) => c.route);
  }
}

function split(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/').slice(1);
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  let params: Record<string, string> | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const actual = parts[i]!;
    if (expected.startsWith(':')) {
      if (actual === '') return undefined;
      params ??= {};
      try {
        params[expected.slice(1)] = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params ?? {};
}
