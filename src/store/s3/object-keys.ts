// The bucket's layout under the store's prefix, and the confinement of refs to it:
//   <prefix>jobs/<jobId>.audio             durable job audio
//   <prefix>results/<jobId>.partial-<n>    provisional result revision n of a running job
//   <prefix>results/<jobId>.result         final result
//   <prefix>results/<jobId>.result-<n>     final result revision n (a result replaced after the job ended)
//   <prefix>results/<jobId>.redacted-audio a job's redacted copy of its audio (a WAV file)
//   <prefix>uploads/<jobId>                a direct upload (browser POST form), until collected
// A ref is the whole object key. Like LocalBlobStore's paths, a ref is accepted only when it has
// exactly the shape of a key this store hands out, in the areas an operation allows: anything else
// in the bucket (another prefix, another application's objects) is never read, moved or deleted.
import { checkJobId, JOB_AUDIO_NAME, JOB_ID, jobAudioName, RESULT_NAME, resultName } from '../blob-names.js';
import { BlobPathError, type ResultKind } from '../blob-store.js';

export type KeyArea = 'jobs' | 'results' | 'uploads';

// A direct upload's object is named by its job id alone.
const NAME_PATTERNS: Readonly<Record<KeyArea, RegExp>> = { jobs: JOB_AUDIO_NAME, results: RESULT_NAME, uploads: JOB_ID };

export class ObjectKeys {
  constructor(private readonly prefix: string) {}

  jobAudio(jobId: string): string {
    return `${this.area('jobs')}${jobAudioName(jobId)}`;
  }

  result(jobId: string, result: ResultKind): string {
    return `${this.area('results')}${resultName(jobId, result)}`;
  }

  upload(jobId: string): string {
    return `${this.area('uploads')}${checkJobId(jobId)}`;
  }

  /** The key prefix of an area, for listing it. */
  area(area: KeyArea): string {
    return `${this.prefix}${area}/`;
  }

  /** Which of `areas` the ref is a key of, or null when it is not one this store hands out there. */
  areaOf(ref: string, areas: readonly KeyArea[]): KeyArea | null {
    for (const area of areas) {
      const start = this.area(area);
      if (ref.startsWith(start) && NAME_PATTERNS[area].test(ref.slice(start.length))) return area;
    }
    return null;
  }

  /** `ref` when it is a key of this store in one of `areas`; else BlobPathError. */
  confine(ref: string, areas: readonly KeyArea[]): string {
    if (this.areaOf(ref, areas) === null) throw new BlobPathError(`not a key of this blob store: ${ref}`);
    return ref;
  }

  /** The job id of a direct-upload key (one `areaOf` accepted as 'uploads'). */
  uploadJobId(key: string): string {
    return key.slice(this.area('uploads').length);
  }
}
