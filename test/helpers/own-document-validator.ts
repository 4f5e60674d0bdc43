// The service's own OpenAPI document (GET /v1/openapi.json) as an ajv validator of real answers:
// `errors(method, path, status, contentType, value)` lists where `value` breaks the schema the
// document gives that operation's answer. Used beside openai-schema-validator.ts: a response must
// satisfy OpenAI's schema and ours.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

const pointerPart = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

export class OwnDocumentValidator {
  private readonly ajv: Ajv2020;

  constructor(readonly document: Json) {
    // `binary` describes a multipart file part; nothing validates it as a value.
    this.ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, formats: { binary: true } });
    (addFormats as unknown as (a: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema({ $id: 'svc', paths: document.paths, components: document.components }, 'svc');
  }

  static async fetch(baseUrl: string): Promise<OwnDocumentValidator> {
    return new OwnDocumentValidator((await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as Json);
  }

  /** The ways `value` breaks the documented answer; throws when the document has no such answer. */
  errors(method: string, path: string, status: number, contentType: string, value: unknown): string[] {
    const mediaType = contentType.split(';')[0].trim();
    let pointer = `#/paths/${pointerPart(path)}/${method.toLowerCase()}/responses/${status}`;
    const response = this.at(pointer);
    if (!response) throw new Error(`the document has no ${status} answer for ${method} ${path}`);
    if (typeof response.$ref === 'string') pointer = response.$ref;
    if (!this.at(pointer)?.content?.[mediaType]) throw new Error(`the document's ${status} answer for ${method} ${path} has no ${mediaType}`);
    const validate = this.ajv.getSchema(`svc${pointer}/content/${pointerPart(mediaType)}/schema`)!;
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
  }

  private at(pointer: string): Json | undefined {
    return pointer
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<any>((node, part) => (node && typeof node === 'object' ? node[part] : undefined), this.document);
  }
}
