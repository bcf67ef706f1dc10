// A 1:1 WebRTC call (docs/appointments.md): the local camera and microphone, one RTCPeerConnection,
// and the service's signalling channel (POST a signal, poll the other side's about once a second).
// The doctor makes the offer once the patient is present; the patient answers. Media flows peer to
// peer, or through the TURN relay the join answer names.

export interface JoinPass {
  ice_servers: { urls: string[]; username?: string; credential?: string }[];
  signalling_url: string;
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
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private offered = false;
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
    void this.poll();
  }

  private async send(type: Signal['type'], payload: unknown) {
    await fetch(this.pass.signalling_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: this.pass.token, type, payload }) });
  }

  private async poll() {
    if (this.stopped) return;
    try {
      // The pass goes in a header: a URL is kept by proxies and logs.
      const r = await fetch(`${this.pass.signalling_url}?after=${this.after}`, { headers: { 'x-call-token': this.pass.token } });
      if (r.status === 404) {
        // The call's window closed (or the pass is gone).
        this.end(false);
        return;
      }
      const body = (await r.json()) as { messages: Signal[]; peer_present: boolean };
      this.on.peerPresent(body.peer_present);
      if (this.pass.role === 'doctor' && body.peer_present && !this.offered) await this.offer();
      for (const m of body.messages) {
        this.after = Math.max(this.after, m.seq);
        await this.handle(m);
      }
    } catch {
      // A network hiccup: try again at the next tick.
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.poll(), this.pc.connectionState === 'connected' ? 3000 : 1000);
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
    clearTimeout(this.timer);
    if (sayBye) void this.send('bye', null).catch(() => undefined);
    for (const t of this.local.getTracks()) t.stop();
    this.pc.close();
    this.on.state('ended');
  }
}
