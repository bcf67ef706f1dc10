// A 1:1 WebRTC call (docs/appointments.md): the local camera and microphone, one RTCPeerConnection,
// and the service's signalling channel: POST a signal; receive the other side's as server-sent
// events, read with fetch (the call pass goes in the X-Call-Token header, which EventSource cannot
// send; a URL would be kept by proxies and logs). A dropped stream reconnects with Last-Event-ID.
// The doctor makes the offer once the patient is present; the patient answers. Media flows peer to
// peer, or through the TURN relay the join answer names.

export interface JoinPass {
  ice_servers: { urls: string[]; username?: string; credential?: string }[];
  signalling_url: string;
  /** The server-sent events of the other side (absent from an older service: signalling_url + 'stream/'). */
  signalling_stream_url?: string;
  token: string;
  expires_at: string;
  role: 'patient' | 'doctor';
}

export type CallState = 'waiting' | 'connecting' | 'connected' | 'ended' | 'failed';

export interface CallEvents {
  state(s: CallState): void;
  peerPresent(present: boolean): void;
  remoteStream(stream: MediaStream): void;
}

type Signal = { seq: number; type: 'offer' | 'answer' | 'candidate' | 'bye'; payload: unknown };

export class Call {
  readonly pc: RTCPeerConnection;
  private after = 0;
  private readonly abort = new AbortController();
  private stopped = false;
  private offered = false;
  private replaced = false;
  private pending: RTCIceCandidateInit[] = [];

  constructor(
    private readonly pass: JoinPass,
    readonly local: MediaStream,
    private readonly on: CallEvents,
    options: { relayOnly?: boolean } = {},
  ) {
    this.pc = new RTCPeerConnection({ iceServers: pass.ice_servers, iceTransportPolicy: options.relayOnly ? 'relay' : 'all' });
    for (const track of local.getTracks()) this.pc.addTrack(track, local);
    this.pc.ontrack = (e) => {
      if (e.streams[0]) on.remoteStream(e.streams[0]);
    };
    this.pc.onicecandidate = (e) => {
      if (e.candidate) void this.send('candidate', e.candidate.toJSON());
    };
    this.pc.onconnectionstatechange = () => {
      const s = this.pc.connectionState;
      if (s === 'connected') on.state('connected');
      else if (s === 'failed') on.state('failed');
      else if (s === 'connecting') on.state('connecting');
    };
    on.state('waiting');
    void this.listen();
  }

  private async send(type: Signal['type'], payload: unknown) {
    await fetch(this.pass.signalling_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: this.pass.token, type, payload }) });
  }

  /** Reads the event stream; reconnects after a drop (resuming after the last signal) until the call ends. */
  private async listen() {
    const url = this.pass.signalling_stream_url ?? `${this.pass.signalling_url}stream/`;
    while (!this.stopped && !this.replaced) {
      try {
        const headers: Record<string, string> = { 'x-call-token': this.pass.token, accept: 'text/event-stream' };
        if (this.after) headers['last-event-id'] = String(this.after);
        const r = await fetch(url, { headers, cache: 'no-store', signal: this.abort.signal });
        if (r.status === 404) {
          // The pass is over: the call's window closed, the appointment was cancelled, or this side hung up.
          this.end(false);
          return;
        }
        if (!r.ok || !r.body) throw new Error(String(r.status));
        const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, i);
            buffer = buffer.slice(i + 2);
            let event = 'message';
            let data = '';
            for (const line of block.split('\n')) {
              if (line.startsWith('event:')) event = line.slice(6).trim();
              else if (line.startsWith('data:')) data += line.slice(5).trim();
            }
            if (data) await this.onEvent(event, JSON.parse(data) as unknown);
            if (this.stopped || this.replaced) return;
          }
        }
      } catch {
        if (this.stopped) return;
      }
      // The stream dropped (a network hiccup, a proxy's timeout): reconnect shortly.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  private async onEvent(event: string, data: unknown) {
    if (event === 'presence') {
      const present = Boolean((data as { peer_present?: boolean }).peer_present);
      this.on.peerPresent(present);
      if (this.pass.role === 'doctor' && present && !this.offered) await this.offer();
    } else if (event === 'signal') {
      const m = data as Signal;
      this.after = Math.max(this.after, m.seq);
      await this.handle(m);
    } else if (event === 'end') {
      const reason = (data as { reason?: string }).reason;
      // A process shutting down: reconnect (to another). A newer stream of this pass took over: leave it.
      if (reason === 'shutdown') return;
      if (reason === 'replaced') {
        this.replaced = true;
        return;
      }
      // The server closed the channel: the call's window ended, it was cancelled, or this side hung up.
      this.end(false);
    }
  }

  private async offer() {
    this.offered = true;
    this.on.state('connecting');
    const offer = await this.pc.createOffer();
    await this.pc.setLocalDescription(offer);
    await this.send('offer', this.pc.localDescription?.toJSON());
  }

  private async handle(m: Signal) {
    if (m.type === 'bye') {
      // The other side hung up: a doctor offers again when the patient comes back.
      this.on.peerPresent(false);
      this.offered = false;
      this.on.state('waiting');
      return;
    }
    if (m.type === 'offer' && this.pass.role === 'patient') {
      this.on.state('connecting');
      await this.pc.setRemoteDescription(m.payload as RTCSessionDescriptionInit);
      await this.flushCandidates();
      const answer = await this.pc.createAnswer();
      await this.pc.setLocalDescription(answer);
      await this.send('answer', this.pc.localDescription?.toJSON());
    } else if (m.type === 'answer' && this.pass.role === 'doctor') {
      await this.pc.setRemoteDescription(m.payload as RTCSessionDescriptionInit);
      await this.flushCandidates();
    } else if (m.type === 'candidate') {
      const c = m.payload as RTCIceCandidateInit;
      if (this.pc.remoteDescription) await this.pc.addIceCandidate(c).catch(() => undefined);
      else this.pending.push(c);
    }
  }

  private async flushCandidates() {
    for (const c of this.pending.splice(0)) await this.pc.addIceCandidate(c).catch(() => undefined);
  }

  setMuted(muted: boolean) {
    for (const t of this.local.getAudioTracks()) t.enabled = !muted;
  }

  setCameraOff(off: boolean) {
    for (const t of this.local.getVideoTracks()) t.enabled = !off;
  }

  /** Hangs up: tells the other side, stops the camera and microphone, closes the connection. */
  end(sayBye = true) {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort();
    if (sayBye) void this.send('bye', null).catch(() => undefined);
    for (const t of this.local.getTracks()) t.stop();
    this.pc.close();
    this.on.state('ended');
  }
}
