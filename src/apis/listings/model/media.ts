/*
 * The media contract: what POST /medias takes and answers, the file types a media may have and
 * the limits of its upload, each schema with the type TypeBox derives from it.
 */
import Type, { type Static } from 'typebox';
import { explainedPattern } from '../../../platform/http/schemas.js';

/** Contract: a presigned URL accepts one upload for 60 seconds. */
export const UPLOAD_URL_SECONDS = 60;
/** Contract: "files up to 40 MB", read generously as 40 MiB so no client counting in decimal megabytes is refused. */
export const MAX_MEDIA_BYTES = 40 * 1024 * 1024;

/** The file types a media may have, by fileName extension; the upload must carry this Content-Type. */
export const MEDIA_CONTENT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
});

const EXTENSIONS = Object.keys(MEDIA_CONTENT_TYPES);
/**
 * A plain file name (no slash, backslash or control character) ending in one of the extensions, in
 * any letter case: the document states which names are taken, not only its prose.
 */
const FILE_NAME_PATTERN = explainedPattern(
  `^[^/\\\\\\u0000-\\u001f]+\\.(${EXTENSIONS.map((extension) =>
    [...extension].map((letter) => (/[a-z]/.test(letter) ? `[${letter}${letter.toUpperCase()}]` : letter)).join(''),
  ).join('|')})$`,
  `must be a file name without /, \\ or control characters, ending in one of the media file extensions: ${EXTENSIONS.join(', ')}`,
);

/** The body of POST /medias. */
export const NewMedia = Type.Object(
  {
    externalMediaId: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: '^[A-Za-z0-9._:-]+$',
      description:
        'Your identifier of the media, unique per agency and environment; a listing references the media by it (media[].externalMediaId)',
    }),
    fileName: Type.String({
      minLength: 3,
      maxLength: 255,
      pattern: FILE_NAME_PATTERN,
      description: `The file's name; its extension gives the Content-Type the upload must carry: ${Object.entries(MEDIA_CONTENT_TYPES)
        .map(([extension, type]) => `${extension} ${type}`)
        .join(', ')}`,
    }),
  },
  { additionalProperties: false },
);
export type NewMedia = Static<typeof NewMedia>;

/** The 201 of POST /medias. */
export const MediaCreated = Type.Object({
  externalMediaId: Type.String(),
  presignedURL: Type.String({
    format: 'uri',
    description: `PUT the file's bytes here within ${UPLOAD_URL_SECONDS} seconds, with the Content-Type of its extension; one upload, at most ${MAX_MEDIA_BYTES} bytes`,
  }),
});
export type MediaCreated = Static<typeof MediaCreated>;
