import type * as OtelInterceptors from '@temporalio/interceptors-opentelemetry';
import type * as TraceBase from '@opentelemetry/sdk-trace-base';
import type * as Resources from '@opentelemetry/resources';
import { type Resource } from '@opentelemetry/resources';
import { type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { type WorkerOptions } from '@temporalio/worker';

/**
 * Tracing of a verification worker (OpenTelemetry, through `@temporalio/interceptors-opentelemetry`).
 * Spans carry workflow ids (`idv-<reference>`, no personal data), types and outcomes; payloads
 * never go into spans.
 */
export interface TracingOptions {
  /** Where spans go: e.g. a `BatchSpanProcessor` around an OTLP exporter. */
  spanProcessor: SpanProcessor;
  /** The service's resource. @default `service.name` idv-worker */
  resource?: Resource;
}

/** What tracing adds to `Worker.create`'s options. */
export type WorkerTracing = Pick<WorkerOptions, 'interceptors' | 'sinks'>;

/**
 * The worker options that trace activities (a span per execution, `RunActivity:<name>`) and,
 * when the workflows are bundled at start, workflows too (`RunWorkflow:<type>`, and spans of
 * their activity and child starts). Loads the optional tracing packages only when called.
 */
export function workerTracing(options: TracingOptions, bundledAtStart: boolean): WorkerTracing {
  /* eslint-disable @typescript-eslint/no-require-imports -- optional peers, loaded only when tracing is on */
  const otel = require('@temporalio/interceptors-opentelemetry') as typeof OtelInterceptors;
  const { BasicTracerProvider } = require('@opentelemetry/sdk-trace-base') as typeof TraceBase;
  const { Resource } = require('@opentelemetry/resources') as typeof Resources;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const resource = options.resource ?? new Resource({ 'service.name': 'idv-worker' });
  const provider = new BasicTracerProvider({ resource, spanProcessors: [options.spanProcessor] });
  const tracer = provider.getTracer('idv-temporal');
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx, { tracer }),
          outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
      ...(bundledAtStart
        ? {
            workflowModules: [
              require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
            ],
          }
        : {}),
    },
    sinks: { exporter: otel.makeWorkflowExporter(options.spanProcessor, resource) },
  };
}
