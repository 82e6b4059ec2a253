// OTLP/HTTP JSON export body with `spans` spans of one trace, as a template for request.ts.
// The same body measures the Collector baseline and, later, our own OTLP endpoint, so their
// spans per CPU-second compare like for like (telemetrygen only speaks protobuf).

export function otlpTracesTemplate(spans: number): string {
  const one = (i: number) =>
    `{"traceId":"{{trace_id}}","spanId":"{{span_id}}","name":"llm.call ${i}","kind":3,` +
    `"startTimeUnixNano":"{{now_ns}}","endTimeUnixNano":"{{now_ns}}",` +
    `"attributes":[{"key":"gen_ai.request.model","value":{"stringValue":"gpt-4o-mini"}},` +
    `{"key":"gen_ai.usage.input_tokens","value":{"intValue":"1200"}},` +
    `{"key":"gen_ai.usage.output_tokens","value":{"intValue":"350"}}],"status":{"code":1}}`;
  const list = Array.from({ length: spans }, (_, i) => one(i)).join(',');
  return (
    `{"resourceSpans":[{"resource":{"attributes":[` +
    `{"key":"service.name","value":{"stringValue":"bench-agent-{{worker}}"}}]},` +
    `"scopeSpans":[{"scope":{"name":"bench"},"spans":[${list}]}]}]}`
  );
}
