// The contract's resources as JSON Schema (2020-12, as OpenAPI 3.1 uses it): request forms and
// bodies, inline transcripts, jobs and the error envelope. Enumerations come from the code that
// enforces them, so the document cannot drift from what the server accepts.
import {
  errorEnvelope,
  transcriptionRequest,
  segment,
  word,
  languageDetection,
  vocabularyAudit,
  patternsReport,
  speakerTiming,
  metadata,
  transcriptionJson,
  transcriptionStreamEvent,
  transcriptionVerboseJson,
  translationRequest,
} from './openapi-transcript-schemas.js';
import {
  decoration,
  jobTranscript,
  jobTranscriptJson,
  partialTranscript,
  acceptedJob,
  job,
  jobResult,
  jobError,
  jobProgress,
  uploadForm,
  createdJob,
  jobCreationRequest,
  jobSucceededEvent,
  jobFailedEvent,
} from './openapi-job-schemas.js';
import { model, modelList, usage } from './openapi-usage-schemas.js';
import type { Schema } from './openapi-types.js';

export { ref } from './openapi-schema-builders.js';

export const schemas: Record<string, Schema> = {
  Error: errorEnvelope,
  TranscriptionRequest: transcriptionRequest,
  TranslationRequest: translationRequest,
  TranscriptionJson: transcriptionJson,
  TranscriptionStreamEvent: transcriptionStreamEvent,
  TranscriptionVerboseJson: transcriptionVerboseJson,
  Segment: segment,
  Word: word,
  SpeakerTiming: speakerTiming,
  LanguageDetection: languageDetection,
  VocabularyAudit: vocabularyAudit,
  PatternsReport: patternsReport,
  Metadata: metadata,
  AcceptedJob: acceptedJob,
  JobCreationRequest: jobCreationRequest,
  Job: job,
  CreatedJob: createdJob,
  UploadForm: uploadForm,
  JobResult: jobResult,
  JobTranscript: jobTranscript,
  JobTranscriptJson: jobTranscriptJson,
  PartialTranscript: partialTranscript,
  Decoration: decoration,
  JobError: jobError,
  JobProgress: jobProgress,
  JobSucceededEvent: jobSucceededEvent,
  JobFailedEvent: jobFailedEvent,
  Model: model,
  ModelList: modelList,
  Usage: usage,
};
