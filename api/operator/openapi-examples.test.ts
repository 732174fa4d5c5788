import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestService } from '../testing/test-service.js';

// Every request and answer in both documents carries a hand-written example,
// each example is valid against its schema, and the request examples work
// when pasted (the reference page turns them into curl lines).

const addFormats = addFormatsModule.default;

type Schema = Record<string, unknown> & { $ref?: string; example?: unknown; properties?: Record<string, Schema>; items?: Schema };
type Media = { schema?: Schema; example?: unknown };
type Operation = {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema; example?: unknown }[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};
type Document = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

const { api, platform } = useTestService('openapi_examples');
const documents: Record<string, Document> = {};
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

beforeAll(async () => {
  for (const [id, path] of [
    ['integrator', '/openapi.json'],
    ['admin', '/admin/openapi.json'],
  ] as const) {
    const answer = await api.call('GET', path);
    expect(answer.status).toBe(200);
    documents[id] = answer.json;
    ajv.addSchema({ ...answer.json, $id: id });
  }
});

const pointer = (...segments: string[]) =>
  segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

/** Ajv's errors for `value` against the schema at `path` of document `id` ([] when valid). */
function problems(id: string, path: string, value: unknown) {
  const validate = ajv.getSchema(`${id}#/${path}`);
  if (!validate) throw new Error(`no schema at ${id}#/${path}`);
  return validate(value) ? [] : validate.errors;
}

const resolve = (document: Document, schema: Schema): Schema =>
  schema.$ref ? resolve(document, document.components!.schemas![schema.$ref.replace('#/components/schemas/', '')]!) : schema;

/**
 * The example a reader sees for a schema: its own `example`, else one put
 * together from its parts. Strings must be given (a generated "string" is no
 * example); `missing` collects where one is not.
 */
function exampleOf(document: Document, raw: Schema, where: string, missing: string[]): unknown {
  const schema = resolve(document, raw);
  if (schema.example !== undefined) return schema.example;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.allOf) {
    const parts = (schema.allOf as Schema[]).map((part) => exampleOf(document, part, where, missing));
    return Object.assign({}, ...parts);
  }
  const options = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (options) return exampleOf(document, options[0]!, where, missing);
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (types.includes('object') || schema.properties) {
    return Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([key, property]) => [
        key,
        exampleOf(document, property, `${where}.${key}`, missing),
      ]),
    );
  }
  if (types.includes('array')) return [exampleOf(document, schema.items ?? {}, `${where}[]`, missing)];
  if (types.includes('boolean')) return true;
  if (types.includes('integer') || types.includes('number')) return (schema.minimum as number | undefined) ?? 1;
  missing.push(where);
  return undefined;
}

/** Every operation of both documents, with where it lives. */
function operations() {
  return Object.entries(documents).flatMap(([id, document]) =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        id,
        document,
        path,
        method,
        operation,
        name: `${method.toUpperCase()} ${path}`,
      })),
    ),
  );
}

/** The example shown for a media type, checked complete and valid; returns it. */
function checkedExample(id: string, document: Document, media: Media, path: string[], where: string) {
  const missing: string[] = [];
  const example = media.example !== undefined ? media.example : exampleOf(document, media.schema ?? {}, where, missing);
  expect.soft(missing, `${where}: no example for these parts`).toEqual([]);
  expect.soft(problems(id, pointer(...path, 'schema'), example), `${where}: ${JSON.stringify(example)}`).toEqual([]);
  return example;
}

describe('examples in both documents', () => {
  it('every operation has an operationId and JSON request and answer examples valid against their schemas', () => {
    const all = operations();
    expect(all.length).toBeGreaterThan(20);
    for (const { id, document, path, method, operation, name } of all) {
      expect.soft(operation.operationId, name).toMatch(/^[a-z][A-Za-z]+$/);
      const body = operation.requestBody?.content['application/json'];
      if (body)
        checkedExample(
          id,
          document,
          body,
          ['paths', path, method, 'requestBody', 'content', 'application/json'],
          `${name} request`,
        );
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          const where = `${name} ${status} ${type}`;
          if (type !== 'application/json') expect.soft(media.example ?? media.schema?.example, where).toBeTruthy();
          else checkedExample(id, document, media, ['paths', path, method, 'responses', status, 'content', type], where);
        }
      }
    }
  });

  it('every error answer has its own example (not one put together from the schema)', () => {
    for (const { operation, name } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const media = response.content?.['application/json'];
        if (Number(status) >= 400 && media) expect.soft(media.example, `${name} ${status}`).toMatchObject({ success: false });
      }
    }
  });

  it('every required parameter has an example, and every parameter example is valid against its schema', () => {
    for (const { id, path, method, operation, name } of operations()) {
      (operation.parameters ?? []).forEach((parameter, index) => {
        const example = parameter.example ?? parameter.schema?.example;
        if (parameter.required) expect.soft(example, `${name} ${parameter.in} ${parameter.name}`).toBeDefined();
        if (example !== undefined)
          expect.soft(problems(id, pointer('paths', path, method, 'parameters', String(index), 'schema'), example)).toEqual([]);
      });
    }
  });

  it('every example inside a named schema is valid against the schema it sits on', () => {
    let checked = 0;
    const walk = (id: string, schema: Schema, path: string[]) => {
      if (schema.example !== undefined) {
        checked++;
        expect.soft(problems(id, pointer(...path), schema.example), `${id} ${path.join('/')}`).toEqual([]);
      }
      for (const [key, property] of Object.entries(schema.properties ?? {})) walk(id, property, [...path, 'properties', key]);
      if (schema.items) walk(id, schema.items, [...path, 'items']);
      for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
        for (const [index, option] of ((schema[keyword] as Schema[] | undefined) ?? []).entries()) {
          walk(id, option, [...path, keyword, String(index)]);
        }
      }
    };
    for (const [id, document] of Object.entries(documents)) {
      for (const [name, schema] of Object.entries(document.components?.schemas ?? {}))
        walk(id, schema, ['components', 'schemas', name]);
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('the checker is not vacuous: an invalid or partial example is caught', () => {
    const document = documents.integrator!;
    const missing: string[] = [];
    exampleOf(document, { type: 'object', properties: { user_id: { type: 'string' } } }, 'probe', missing);
    expect(missing).toEqual(['probe.user_id']);
    const body = ['paths', '/v1/events', 'post', 'requestBody', 'content', 'application/json', 'schema'];
    expect(
      problems('integrator', pointer(...body), { user_id: '', event_type: 'kyc', timestamp: '2026-01-02T03:04:05Z' }),
    ).not.toEqual([]);
  });
});

/** The request example of an operation, as the reference page shows it. */
function requestExample(operationId: string): Record<string, unknown> {
  const found = operations().find(({ operation }) => operation.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  const media = found.operation.requestBody!.content['application/json']!;
  return structuredClone((media.example ?? resolve(found.document, media.schema!).example) as Record<string, unknown>);
}

describe('request examples work when pasted', () => {
  it('register, event and batch answer 200 with a platform credential', async () => {
    const registered = await api.call('POST', '/v1/users/register', {
      headers: platform.headers,
      body: requestExample('registerUser'),
    });
    expect(registered.status, JSON.stringify(registered.json)).toBe(200);
    const event = await api.call('POST', '/v1/events', { headers: platform.headers, body: requestExample('sendEvent') });
    expect(event.status, JSON.stringify(event.json)).toBe(200);
    expect(event.json.data.status).toBe('received');
    const batch = await api.call('POST', '/v1/events/batch', {
      headers: platform.headers,
      body: requestExample('sendEventBatch'),
    });
    expect(batch.status, JSON.stringify(batch.json)).toBe(200);
    expect(batch.json.data.results.map((result: { status: string }) => result.status)).not.toContain('rejected');
  });

  it('admin: provider, credential, and chain (with real provider ids) answer 200', async () => {
    const headers = api.adminHeaders;
    const provider = await api.call('POST', '/admin/v1/providers', { headers, body: requestExample('createProvider') });
    expect(provider.status, JSON.stringify(provider.json)).toBe(200);
    const credential = await api.call('POST', `/admin/v1/providers/${provider.json.data.id}/credentials`, {
      headers,
      body: requestExample('createCredential'),
    });
    expect(credential.status, JSON.stringify(credential.json)).toBe(200);
    const advertiser = await api.call('POST', '/admin/v1/providers', {
      headers,
      body: { type: 'advertiser', name: 'Example advertiser' },
    });
    const chain = {
      ...requestExample('createQuestChain'),
      platform_id: provider.json.data.id,
      advertiser_id: advertiser.json.data.id,
    };
    const created = await api.call('POST', '/admin/v1/quest-chains', { headers, body: chain });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
  });
});
