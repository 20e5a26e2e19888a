import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as TraceBase from '@opentelemetry/sdk-trace-base';
import type * as Resources from '@opentelemetry/resources';
import { type TracingOptions } from './tracing';

/**
 * Tracing to an OTLP/HTTP collector when the standard OpenTelemetry variables ask for it
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; the exporter reads its
 * other `OTEL_EXPORTER_OTLP_*` settings itself), batched; `OTEL_SERVICE_NAME` names the service
 * (default idv-worker). Undefined, and nothing loaded, when neither is set.
 */
export function tracingFromEnvironment(env: NodeJS.ProcessEnv): TracingOptions | undefined {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  /* eslint-disable @typescript-eslint/no-require-imports -- optional peers, loaded only when tracing is on */
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof TraceBase;
  const { Resource } = require('@opentelemetry/resources') as typeof Resources;
  /* eslint-enable @typescript-eslint/no-require-imports */
  return {
    spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter()),
    resource: new Resource({ 'service.name': env.OTEL_SERVICE_NAME ?? 'idv-worker' }),
  };
}
