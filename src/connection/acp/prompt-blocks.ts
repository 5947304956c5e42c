/**
 * A turn's prompt as ACP content blocks: text, and media natively where the agent's `promptCapabilities` allow
 * it; otherwise a medium stays the text block that names its file.
 */
import type { AgentCapabilities } from '../../model/capabilities.js';
import type { AcpContentBlock } from '../../protocol/acp.js';
import type { TurnMedia, TurnRequest } from '../connection.js';

/** The `session/prompt` blocks for `request`, given what the agent advertised. */
export function promptBlocks(request: TurnRequest, caps: AgentCapabilities | undefined): AcpContentBlock[] {
  const media = new Map<string, TurnMedia>((request.media ?? []).map((m) => [m.ref, m]));
  return request.text.map((text): AcpContentBlock => {
    const m = media.get(text);
    if (m && m.kind === 'image' && caps?.promptImages)
      return {
        type: 'image',
        mimeType: m.mimeType,
        data: Buffer.from(m.data).toString('base64'),
        uri: `file://${m.file}`,
      };
    if (m && m.kind === 'audio' && caps?.promptAudio)
      return { type: 'audio', mimeType: m.mimeType, data: Buffer.from(m.data).toString('base64') };
    if (m && m.kind === 'document' && caps?.promptEmbeddedContext) {
      const uri = `file://${m.file}`;
      return m.mimeType.startsWith('text/')
        ? {
            type: 'resource',
            resource: { uri, mimeType: m.mimeType, text: Buffer.from(m.data).toString('utf8') },
          }
        : {
            type: 'resource',
            resource: { uri, mimeType: m.mimeType, blob: Buffer.from(m.data).toString('base64') },
          };
    }
    return { type: 'text', text };
  });
}
