/**
 * Builds a request path, encoding every interpolated value as one path segment:
 * `path\`/api/v1/sessions/${id}\`` can never be steered to another route by `id`.
 */
export function path(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  return strings.reduce(
    (built, part, index) =>
      built + part + (index < values.length ? encodeURIComponent(String(values[index])) : ''),
    '',
  );
}

/** Appends a query string of the defined values, in the given order. */
export function withQuery(
  basePath: string,
  query: Record<string, string | number | boolean | undefined>,
): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined) params.append(name, String(value));
  const text = params.toString();
  return text ? `${basePath}?${text}` : basePath;
}
