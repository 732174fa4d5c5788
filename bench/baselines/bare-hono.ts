/**
 * The framework's floor on this machine: a bare Hono app on
 * @hono/node-server, no middleware, no logging, no I/O. Started as its own
 * process by the benchmark (PORT from the environment).
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('/', (c) => c.json({ success: true, data: { status: 'ok' } }));
app.post('/echo', async (c) => c.json({ success: true, data: await c.req.json() }));

const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1' });
process.on('SIGTERM', () => server.close(() => process.exit(0)));
