import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { useVerificationStack } from '../harness/verification-stack';

describe('tracing a verification worker', () => {
  const exporter = new InMemorySpanExporter();
  const stack = useVerificationStack({}, { tracing: { spanProcessor: new SimpleSpanProcessor(exporter) } });

  it("exports a span for each of a verification's activities, with its workflow and no payload", async () => {
    // With attachments, the results are fetched by an activity of their own.
    const { handle } = await stack().idv.startVerification(
      stack().request({ results: 'data+attachments', redactAfter: 'never' }),
    );
    await expect(handle.result()).resolves.toMatchObject({ status: 'succeeded' });
    const spans = exporter
      .getFinishedSpans()
      .filter((span) => span.attributes.temporalWorkflowId === handle.workflowId);
    expect(new Set(spans.map((span) => span.name))).toEqual(
      new Set([
        'RunActivity:checkVerificationInput',
        'RunActivity:createSession',
        'RunActivity:pollSession',
        'RunActivity:fetchResults',
        'RunActivity:closeCreation',
      ]),
    );
    for (const span of spans) {
      expect(span.attributes.run_id).toEqual(expect.any(String));
      expect(span.resource.attributes['service.name']).toBe('idv-worker');
      // The person's input (the test provider's family name) never reaches a span.
      expect(JSON.stringify([span.attributes, span.events, span.status])).not.toContain('Lovelace');
    }
  });
});
