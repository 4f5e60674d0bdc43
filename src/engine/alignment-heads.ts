// Which of whisper.cpp's alignment-head presets fits a model file, from its header. DTW token
// timestamps (words that follow the audio more closely than timestamp-token interpolation) need the
// cross-attention heads that track alignment, which OpenAI published per released model. A file whose
// encoder and decoder shapes are not a released model's (a distilled or custom model, our generated
// micro model) has no known heads: its words keep whisper's token timestamps.
import type { ModelHeader } from '../models/model-header.js';
import type { DtwPreset } from './native-addon.js';

/** How word times are found: whisper's token timestamps, or DTW over the alignment heads. */
export const WORD_ALIGNMENTS = ['tokens', 'dtw'] as const;
export type WordAlignment = (typeof WORD_ALIGNMENTS)[number];

/** Decoder depth of each released encoder shape (large-v3-turbo: 4 decoder layers, its own heads). */
const DECODER_LAYERS: Partial<Record<ModelHeader['arch'], number>> = { tiny: 4, base: 6, small: 12, medium: 24, large: 32 };

export function alignmentHeadsOf(header: Pick<ModelHeader, 'arch' | 'multilingual' | 'nTextLayer' | 'nMels'>): DtwPreset {
  const { arch, multilingual, nTextLayer, nMels } = header;
  if (arch === 'large') {
    if (!multilingual) return 'none';
    if (nMels === 128) return nTextLayer === 4 ? 'large.v3.turbo' : nTextLayer === 32 ? 'large.v3' : 'none';
    // large-v1 and -v2 share a shape; v2 is the one in use (v1's heads differ).
    return nTextLayer === 32 ? 'large.v2' : 'none';
  }
  if (arch !== 'tiny' && arch !== 'base' && arch !== 'small' && arch !== 'medium') return 'none';
  if (nTextLayer !== DECODER_LAYERS[arch] || nMels !== 80) return 'none';
  return multilingual ? arch : `${arch}.en`;
}
