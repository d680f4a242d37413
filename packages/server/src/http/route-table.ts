import type { FastifyInstance } from 'fastify';

/** One route as Fastify registered it: what the tests compare against the document and their own rows. */
export interface RouteEntry {
  method: string;
  url: string;
  /** Left out of the public OpenAPI document (the docs page, the document itself, operations figures). */
  hidden: boolean;
  operationId: string | undefined;
}

/**
 * Records every route as it is registered. The authorization matrix and the fuzz suite walk the OpenAPI
 * document; this table is how they find the routes the document leaves out, so a hidden route without a
 * row of its own fails them too.
 */
export function recordRoutes(app: FastifyInstance): readonly RouteEntry[] {
  const table: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const schema = route.schema as { hide?: boolean; operationId?: string } | undefined;
    for (const method of methods) {
      // Fastify adds a HEAD twin for every GET; it answers exactly as the GET does.
      if (method === 'HEAD' && table.some((r) => r.method === 'GET' && r.url === route.url)) continue;
      table.push({ method, url: route.url, hidden: schema?.hide === true, operationId: schema?.operationId });
    }
  });
  return table;
}
