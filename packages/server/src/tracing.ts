import diagnostics from 'node:diagnostics_channel';
import type { Span } from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import { redactUrl } from './http/redact.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface Tracing {
  /** Exports the spans still buffered; the process exits right after. */
  shutdown(): Promise<void>;
}

/** The span attribute that links a trace to the ray id the client saw (x-ray-id, error bodies). */
export const RAY_ID_ATTRIBUTE = 'gcm.ray_id';

const set = (value: string | undefined) => value !== undefined && value.trim() !== '';

/**
 * Tracing is on when the standard variables ask for an exporter: OTEL_EXPORTER_OTLP_ENDPOINT (or its
 * _TRACES_ form) or OTEL_TRACES_EXPORTER, unless OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none.
 */
export function tracingRequested(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter === 'none') return false;
  return set(env.OTEL_EXPORTER_OTLP_ENDPOINT) || set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) || set(exporter);
}

/**
 * Starts the OpenTelemetry SDK when asked for, before the service's modules load: the instrumentations
 * patch `http` and `pg` as they are imported, so main.ts imports the service only after this. When off,
 * no OpenTelemetry module is loaded at all (the imports below are dynamic).
 *
 * Everything else comes from the standard OTEL_* variables (exporter, protocol, endpoint, headers,
 * sampler, resource attributes); the service name defaults to gcm-server.
 */
export async function startTracing(env: Env): Promise<Tracing | undefined> {
  if (!tracingRequested(env)) return undefined;
  const [{ NodeSDK }, { HttpInstrumentation }, { PgInstrumentation }, { FastifyOtelInstrumentation }, api] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/instrumentation-http'),
      import('@opentelemetry/instrumentation-pg'),
      import('@fastify/otel'),
      import('@opentelemetry/api'),
    ]);
  // Subscribed before @fastify/otel subscribes (as it is made), so this hook runs before its request span
  // is made active: the active span is then the HTTP server span.
  diagnostics.subscribe('fastify.initialization', (message) => {
    linkRayIds((message as { fastify: FastifyInstance }).fastify, api.trace.getActiveSpan);
  });
  const sdk = new NodeSDK({
    serviceName: set(env.OTEL_SERVICE_NAME) ? env.OTEL_SERVICE_NAME : 'gcm-server',
    instrumentations: [
      new HttpInstrumentation({
        applyCustomAttributesOnSpan: (span) => redactSpanUrls(span),
        // The outgoing side would trace the exporter's own POSTs (and S3 calls, which the SDK signs in the URL).
        disableOutgoingRequestInstrumentation: true,
      }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        requestHook: (span, request) => {
          span.setAttribute('url.path', redactUrl(request.url));
          span.setAttribute(RAY_ID_ATTRIBUTE, request.id);
        },
      }),
      new PgInstrumentation(),
    ],
  });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}

/**
 * The ray id stays the service's own (clients and support already quote it); it is recorded on the HTTP
 * server span, and the trace id is added to the request's log lines, so either finds the other.
 */
function linkRayIds(app: FastifyInstance, activeSpan: () => Span | undefined): void {
  app.addHook('onRequest', (request, reply, done) => {
    const span = activeSpan();
    if (span !== undefined) {
      span.setAttribute(RAY_ID_ATTRIBUTE, request.id);
      request.log = request.log.child({ trace_id: span.spanContext().traceId });
      reply.log = request.log;
    }
    done();
  });
}

const URL_ATTRIBUTES = ['http.url', 'http.target', 'url.full', 'url.path', 'url.query'];

/** Device link tokens and signed URL signatures ride in paths and queries; they stay out of traces too. */
function redactSpanUrls(span: Span): void {
  // The SDK's spans are ReadableSpans; the API type has no getter for attributes.
  const attributes = (span as unknown as { attributes?: Record<string, unknown> }).attributes ?? {};
  for (const name of URL_ATTRIBUTES) {
    const value = attributes[name];
    if (typeof value !== 'string') continue;
    if (name === 'url.query') span.setAttribute(name, redactUrl(`/?${value}`).slice(2));
    else if (/^https?:\/\//.test(value)) {
      const url = new URL(value);
      span.setAttribute(name, `${url.origin}${redactUrl(`${url.pathname}${url.search}`)}`);
    } else span.setAttribute(name, redactUrl(value));
  }
}
