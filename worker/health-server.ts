import { createServer, type Server } from 'node:http';

export interface HealthServerOptions {
  port: number;
  host: string;
  /** Resolves when Postgres and Redis answer; rejects otherwise. */
  ready: () => Promise<void>;
  isShuttingDown: () => boolean;
  /** Prometheus exposition, when metrics are wired. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
}

/** The worker's own small HTTP port for orchestrators: liveness, readiness and metrics. */
export function startHealthServer(options: HealthServerOptions): Promise<Server> {
  const server = createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/healthz') return send(200, { success: true, data: { status: 'ok' } });
    if (path === '/readyz') {
      if (options.isShuttingDown()) return send(503, { success: false, error: 'Shutting down', code: 'unavailable' });
      options
        .ready()
        .then(() => send(200, { success: true, data: { status: 'ready' } }))
        .catch(() => send(503, { success: false, error: 'Not ready: postgres or redis unreachable', code: 'unavailable' }));
      return;
    }
    if (path === '/metrics' && options.metrics) {
      options
        .metrics()
        .then(({ contentType, body }) => {
          response.writeHead(200, { 'content-type': contentType });
          response.end(body);
        })
        .catch(() => send(500, { success: false, error: 'metrics unavailable', code: 'internal' }));
      return;
    }
    send(404, { success: false, error: `No route for ${request.method} ${path}`, code: 'not_found' });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve(server));
  });
}
