// svc-stt command dispatcher. Each command lives in its own file; this one only routes.
import { runModelsCommand } from './models-command.js';
import { runTranscribeCommand } from './transcribe-command.js';

const USAGE = `svc-stt — self-hosted medical speech-to-text

Usage:
  svc-stt transcribe FILE [--model PATH|NAME] [--language CODE] [--format text|json|verbose_json]
                          [--threads N] [--max-tokens N]
  svc-stt models list
  svc-stt models download NAME [--dir DIR] [--no-verify]
  svc-stt models make-test --arch micro|tiny|base|small --seed N --out FILE

Environment: SVC_MODEL (default model file), SVC_MODELS_DIR (default ./models).
`;

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'transcribe':
        await runTranscribeCommand(rest);
        break;
      case 'models':
        await runModelsCommand(rest);
        break;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        break;
      default:
        process.stderr.write(`svc-stt: unknown command '${command}'\n\n${USAGE}`);
        process.exitCode = 2;
    }
  } catch (error) {
    process.stderr.write(`svc-stt: ${(error as Error).message}\n`);
    process.exitCode = (error as { exitCode?: number }).exitCode ?? 1;
  }
}
