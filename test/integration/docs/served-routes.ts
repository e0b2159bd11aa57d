import type express from 'express';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: unknown;
}

export interface ServedRoute {
  method: string;
  /** In OpenAPI's spelling: `/people/{id}` for Express's `/people/:id`. */
  path: string;
}

/**
 * Every method and path the app's routers serve, read from Express's router stack. `router.all`
 * handlers (405 with Allow) are not operations and are left out.
 */
export function servedRoutes(app: express.Express): ServedRoute[] {
  const walk = (stack: Layer[], prefix: string): ServedRoute[] =>
    stack.flatMap((layer) => {
      if (layer.route !== undefined) {
        const path = `${prefix}${layer.route.path}`.replace(/:(\w+)/g, '{$1}');
        return Object.keys(layer.route.methods)
          .filter((method) => method !== '_all')
          .map((method) => ({ method, path }));
      }
      const nested = layer.handle?.stack;
      if (!Array.isArray(nested)) return [];
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      return walk(nested, `${prefix}${mount}`);
    });
  return walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
}
