import { Agent, request } from 'node:http';
import { type ApiCall, dataOf } from '../../shared/testing/world-seeder.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  ms: number;
}

/**
 * A lean HTTP/1.1 client over kept-alive sockets: the load generator runs on
 * the same two cores as the service, so it must cost little per request
 * (fetch's streams cost several times this).
 */
export function createHttpClient(baseUrl: string, maxSockets = 64) {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets });
  return {
    call(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
      const started = performance.now();
      return new Promise((resolve, reject) => {
        const req = request(
          {
            agent,
            host: url.hostname,
            port: url.port,
            method,
            path,
            headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks).toString(),
                ms: performance.now() - started,
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

export type HttpClient = ReturnType<typeof createHttpClient>;

/** The seeder's view of the client: the data of a 200 JSON answer, else an error naming the call. */
export const apiCallOf =
  (http: HttpClient): ApiCall =>
  async (method, path, headers, body) => {
    const answer = await http.call(method, path, { 'content-type': 'application/json', ...headers }, JSON.stringify(body));
    return dataOf(
      method,
      path,
      { status: answer.status, json: answer.status === 200 ? JSON.parse(answer.body) : undefined },
      () => answer.body,
    );
  };
