/** Everything a stream yields, as one buffer; undefined for no stream. */
export async function readAll(stream: AsyncIterable<Uint8Array> | undefined): Promise<Buffer | undefined> {
  if (!stream) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}
