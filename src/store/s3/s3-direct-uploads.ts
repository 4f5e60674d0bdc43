// Presigned job uploads that go straight to the bucket (S3's browser POST), bypassing the API:
// the form's policy admits one object of an exact length and content type at the job's upload key
// until the slot expires, encrypted by the bucket itself (SVC_S3_UPLOAD_ENCRYPTION); collecting it
// copies it inside the bucket to fresh job audio (which the sealing store then seals).
//
// Not every S3-compatible server enforces POST policy conditions (s3rver stores any body), so
// collect() checks length and type itself before the bytes become a job's audio.
import { randomUUID } from 'node:crypto';

import { CopyObjectCommand, DeleteObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';

import { DirectUploadMismatchError, type DirectUploadPolicy, type DirectUploads } from '../blob-store.js';
import type { ObjectKeys } from './object-keys.js';
import type { S3Clients } from './s3-clients.js';
import { httpStatusOf, isNotFound, storageError } from './s3-errors.js';

/** A re-post racing collect() can change the object between its check and its copy; try again. */
const COLLECT_ATTEMPTS = 3;

export class S3DirectUploads implements DirectUploads {
  constructor(
    private readonly clients: S3Clients,
    private readonly bucket: string,
    private readonly keys: ObjectKeys,
    /** What the form requires of the bucket's own encryption (s3-settings.ts); null: nothing. */
    private readonly encryption: 'AES256' | null = null,
  ) {}

  async form(policy: DirectUploadPolicy): Promise<{ url: string; fields: Record<string, string> }> {
    const key = this.keys.upload(policy.jobId);
    if (!(Number.isSafeInteger(policy.contentLength) && policy.contentLength >= 0)) throw new RangeError('a content length is a non-negative integer');
    // The SDK writes `expiration` as its own clock (plus its skew correction) + Expires seconds,
    // truncated to the second. Aiming half a second past the wanted second makes that truncation
    // land on it, whatever the few milliseconds between here and there.
    const wantedSecondMs = Math.floor(policy.expiresAtMs / 1000) * 1000;
    const skewMs = this.clients.signer.config.systemClockOffset ?? 0;
    const expires = (wantedSecondMs + 500 - (Date.now() + skewMs)) / 1000;
    if (!(expires > 1)) throw new RangeError('an upload form expires in the future');
    try {
      const encryption = this.encryption ? { 'x-amz-server-side-encryption': this.encryption } : null;
      return await createPresignedPost(this.clients.signer, {
        Bucket: this.bucket,
        Key: key,
        Conditions: [
          ['content-length-range', policy.contentLength, policy.contentLength],
          { 'Content-Type': policy.contentType },
          ...(encryption ? [encryption] : []),
        ],
        Fields: { 'Content-Type': policy.contentType, ...encryption },
        Expires: expires,
      });
    } catch (error) {
      // Signing needs the credentials; a failing provider (instance role unreachable...) is an outage.
      throw storageError(error, key);
    }
  }

  async collect(policy: DirectUploadPolicy): Promise<string | null> {
    const upload = this.keys.upload(policy.jobId);
    for (let attempt = 1; ; attempt += 1) {
      let head;
      try {
        head = await this.clients.api.send(new HeadObjectCommand({ Bucket: this.bucket, Key: upload }));
      } catch (error) {
        if (isNotFound(error)) return null;
        throw storageError(error, upload);
      }
      const actual = { contentLength: head.ContentLength ?? null, contentType: head.ContentType ?? null };
      if (actual.contentLength !== policy.contentLength || actual.contentType !== policy.contentType) {
        await this.discard(policy.jobId);
        throw new DirectUploadMismatchError({ contentLength: policy.contentLength, contentType: policy.contentType }, actual);
      }
      // A fresh key: the job's audio is a new object, never the one the form can still overwrite.
      // One CopyObject copies up to 5 GB (S3's limit; the default upload limit is 100 MB). Uploads
      // allowed beyond 5 GB would need a multipart copy (UploadPartCopy).
      const audio = this.keys.jobAudio(randomUUID());
      try {
        await this.clients.api.send(
          new CopyObjectCommand({
            Bucket: this.bucket,
            Key: audio,
            CopySource: `${this.bucket}/${encodeURIComponent(upload).replace(/%2F/g, '/')}`,
            // Only the bytes checked above: a re-post in between fails the copy (412) and we look again.
            ...(head.ETag ? { CopySourceIfMatch: head.ETag } : {}),
          }),
        );
      } catch (error) {
        if (httpStatusOf(error) === 412 && attempt < COLLECT_ATTEMPTS) continue;
        if (isNotFound(error)) return null; // discarded meanwhile (the slot closed)
        throw storageError(error, upload);
      }
      // The upload object stays until the caller has recorded the copy (then it discards it): if
      // recording fails, the client's file is still there for the next `complete`.
      return audio;
    }
  }

  async discard(jobId: string): Promise<void> {
    const upload = this.keys.upload(jobId);
    try {
      await this.clients.api.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: upload }));
    } catch (error) {
      throw storageError(error, upload);
    }
  }
}
