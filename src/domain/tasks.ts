// What a request asks of the speech: its words in the language spoken, or in English.

export const TASKS = ['transcribe', 'translate'] as const;
export type Task = (typeof TASKS)[number];
