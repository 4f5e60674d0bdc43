// Reference speaker turns from an RTTM file (NIST's Rich Transcription Time Marked format): one
// `SPEAKER file channel start duration <NA> <NA> name <NA> <NA>` line per turn.
export interface RttmTurn {
  speaker: string;
  start: number;
  end: number;
}

export function parseRttm(text: string): RttmTurn[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('SPEAKER '))
    .map((line) => {
      const f = line.trim().split(/\s+/);
      return { speaker: f[7], start: Number(f[3]), end: Number(f[3]) + Number(f[4]) };
    });
}
