// The part of `ws` (a devDependency without bundled types) the local chain's WebSocket endpoint uses.
declare module "ws" {
  import type { Server } from "node:http";

  export class WebSocket {
    constructor(url: string);
    static readonly OPEN: number;
    readonly readyState: number;
    send(data: string): void;
    close(code?: number, reason?: string): void;
    terminate(): void;
    on(event: "message", listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void): this;
    on(event: "close" | "open", listener: () => void): this;
    on(event: "error", listener: (error: Error) => void): this;
  }

  export class WebSocketServer {
    constructor(options: { server: Server; maxPayload?: number });
    readonly clients: Set<WebSocket>;
    on(event: "connection", listener: (socket: WebSocket) => void): this;
    close(callback?: () => void): void;
  }
}
