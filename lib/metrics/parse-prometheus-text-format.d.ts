// Types of the test-only Prometheus text-format parser (the package ships none).
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
