// One MIME validation for media parts: the constructors and `fromBytes` accept exactly the same types.
import { describe, expect, it } from 'vitest';
import { Audio, Document, fromBytes, Image, mediaKindOf, Video } from '../../src/content/content.js';
import { ContentError } from '../../src/errors.js';

const data = new Uint8Array([1, 2, 3]);
const constructors = { image: Image, document: Document, audio: Audio, video: Video } as const;
const MIMES = [
  'image/png',
  'image/JPEG',
  'image/tiff',
  'image/svg+xml',
  'audio/wav',
  'audio/x-aiff',
  'video/mp4',
  'video/x-matroska',
  'application/pdf',
  'text/markdown',
  'application/zip',
  'application/octet-stream',
  'nonsense',
  '',
];

describe('media MIME validation', () => {
  it('new Image({ mimeType: "image/tiff" }) throws ContentError, as fromBytes does', () => {
    expect(() => new Image({ data, mimeType: 'image/tiff' })).toThrow(ContentError);
    expect(() => new Image({ data, mimeType: 'image/tiff' })).toThrow(
      /image part: unsupported MIME type "image\/tiff".*image\/png/,
    );
    expect(() => fromBytes(data, 'image/tiff')).toThrow(ContentError);
  });

  it('a constructor rejects a supported type of another kind', () => {
    expect(() => new Image({ data, mimeType: 'application/pdf' })).toThrow(ContentError);
    expect(() => new Document({ data, mimeType: 'image/png' })).toThrow(ContentError);
    expect(() => new Audio({ data, mimeType: 'video/mp4' })).toThrow(ContentError);
    expect(() => new Video({ data, mimeType: 'audio/wav' })).toThrow(ContentError);
  });

  it.each(MIMES)('constructors and fromBytes agree on %j', (mimeType) => {
    const kind = mediaKindOf(mimeType.toLowerCase());
    let viaBytes: unknown;
    try {
      viaBytes = fromBytes(data, mimeType);
    } catch (error) {
      viaBytes = error;
    }
    for (const [name, Part] of Object.entries(constructors)) {
      let viaConstructor: unknown;
      try {
        viaConstructor = new Part({ data, mimeType });
      } catch (error) {
        viaConstructor = error;
      }
      if (name === kind) {
        expect(viaConstructor).toBeInstanceOf(Part);
        expect(viaBytes).toBeInstanceOf(Part);
        expect((viaConstructor as InstanceType<typeof Part>).mimeType).toBe(mimeType.toLowerCase());
      } else {
        expect(viaConstructor).toBeInstanceOf(ContentError);
      }
    }
    if (kind === undefined) expect(viaBytes).toBeInstanceOf(ContentError);
  });

  it('keeps rejecting data that is not bytes', () => {
    expect(() => new Audio({ data: 'x' as unknown as Uint8Array, mimeType: 'audio/wav' })).toThrow(
      /audio part: data must be a Uint8Array/,
    );
  });
});
