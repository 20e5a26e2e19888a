import { randomBytes } from 'node:crypto';
import { openStream, SealedStreamError, sealStream } from '../../codec/sealed-stream';
import { readAll } from '../harness/streams';

async function* pieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let offset = 0; offset < bytes.length; offset += size) {
    await Promise.resolve();
    yield bytes.subarray(offset, offset + size);
  }
}

async function all(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  return (await readAll(stream)) as Buffer;
}

// Attachments are stored sealed under their verification's data key, frame by frame as they stream.
describe('sealed streams', () => {
  const key = randomBytes(32);
  const content = randomBytes(300 * 1024 + 7);

  it.each([1, 1000, 64 * 1024, 1024 * 1024])(
    'round-trips content arriving in pieces of %i bytes',
    async (size) => {
      const sealed = await all(sealStream(key, 'a', pieces(content, size)));
      expect(sealed.includes(content.subarray(0, 64))).toBe(false);
      // Read back in other piece sizes than written.
      expect((await all(openStream(key, 'a', pieces(sealed, 4097)))).equals(content)).toBe(true);
    },
  );

  it('round-trips empty content', async () => {
    const sealed = await all(sealStream(key, 'a', pieces(Buffer.alloc(0), 1)));
    expect((await all(openStream(key, 'a', pieces(sealed, 3)))).length).toBe(0);
  });

  it('refuses content cut short, altered, under another key or for another attachment', async () => {
    const sealed = await all(sealStream(key, 'a', pieces(content, 50_000)));
    const frameEnd = 8 + 4 + sealed.readUInt32BE(8);
    await expect(all(openStream(key, 'a', pieces(sealed.subarray(0, frameEnd), 999)))).rejects.toBeInstanceOf(
      SealedStreamError,
    );
    const altered = Buffer.from(sealed);
    altered[100] = (altered[100] as number) ^ 1;
    await expect(all(openStream(key, 'a', pieces(altered, 999)))).rejects.toBeInstanceOf(SealedStreamError);
    await expect(all(openStream(randomBytes(32), 'a', pieces(sealed, 999)))).rejects.toBeInstanceOf(
      SealedStreamError,
    );
    await expect(all(openStream(key, 'b', pieces(sealed, 999)))).rejects.toBeInstanceOf(SealedStreamError);
  });

  it('refuses a frame length no sealed frame can have, instead of buffering for it', async () => {
    const forged = Buffer.concat([
      Buffer.from('IDVSEAL1'),
      Buffer.from([0xff, 0xff, 0xff, 0xff]),
      randomBytes(100),
    ]);
    await expect(all(openStream(key, 'a', pieces(forged, 7)))).rejects.toThrow(/claims 4294967295 bytes/);
  });

  it('refuses content that is not a sealed stream, or a stream cut inside its mark', async () => {
    await expect(all(openStream(key, 'a', pieces(Buffer.from('%PDF forged'), 3)))).rejects.toThrow(
      /not a sealed stream/,
    );
    await expect(all(openStream(key, 'a', pieces(Buffer.alloc(0), 1)))).rejects.toThrow(
      /not a sealed stream/,
    );
    await expect(all(openStream(key, 'a', pieces(Buffer.from('IDVSE'), 2)))).rejects.toThrow(
      /not a sealed stream/,
    );
  });
});
