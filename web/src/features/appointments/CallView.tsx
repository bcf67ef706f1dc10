// The call screen, the same for the patient and the doctor: asks for the camera and microphone,
// shows both videos, mute, camera off, hang up, and says plainly when the other side is not there yet.
import { useEffect, useRef, useState } from 'react';
import { Alert } from '../../components/ui';
import { Call, type CallState, type JoinPass } from './call';
import { useAppointmentStrings } from './strings';

export function CallView({ join, onEnded }: { join: () => Promise<JoinPass>; onEnded?: () => void }) {
  const s = useAppointmentStrings();
  const [state, setState] = useState<CallState | 'starting' | 'permission'>('starting');
  const [peer, setPeer] = useState(false);
  const [muted, setMuted] = useState(false);
  const [cameraOff, setCameraOff] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const call = useRef<Call | null>(null);
  const localVideo = useRef<HTMLVideoElement>(null);
  const remoteVideo = useRef<HTMLVideoElement>(null);

  useEffect(() => {
    let cancelled = false;
    void (async () => {
      let stream: MediaStream;
      try {
        stream = await navigator.mediaDevices.getUserMedia({ audio: true, video: true });
      } catch {
        if (!cancelled) setState('permission');
        return;
      }
      if (cancelled) {
        for (const t of stream.getTracks()) t.stop();
        return;
      }
      if (localVideo.current) localVideo.current.srcObject = stream;
      try {
        const pass = await join();
        if (cancelled) {
          for (const t of stream.getTracks()) t.stop();
          return;
        }
        const relayOnly = new URLSearchParams(window.location.search).get('relay') === '1';
        call.current = new Call(
          pass,
          stream,
          {
            state: (x) => setState(x),
            peerPresent: (p) => setPeer(p),
            remoteStream: (r) => {
              if (remoteVideo.current) remoteVideo.current.srcObject = r;
            },
          },
          { relayOnly },
        );
        (window as unknown as { __call?: Call }).__call = call.current;
      } catch (e) {
        for (const t of stream.getTracks()) t.stop();
        if (!cancelled) {
          setError(e instanceof Error ? e.message : String(e));
          setState('failed');
        }
      }
    })();
    return () => {
      cancelled = true;
      call.current?.end();
    };
    // Joining once per mounted call screen.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const hangUp = () => {
    call.current?.end();
    onEnded?.();
  };

  const status =
    state === 'permission'
      ? s('permission')
      : state === 'failed'
        ? (error ?? s('failed'))
        : state === 'ended'
          ? s('ended')
          : state === 'connected'
            ? s('connected')
            : !peer
              ? s('waiting')
              : s('connecting');

  return (
    <section className="call" data-testid="call" data-state={state} data-peer={peer ? 'present' : 'absent'}>
      <p role="status" aria-live="polite" data-testid="call-status">
        {status}
      </p>
      {state === 'permission' || state === 'failed' ? <Alert kind="error">{status}</Alert> : null}
      <div className="call-videos" style={{ display: 'flex', gap: '1rem', flexWrap: 'wrap' }}>
        <figure>
          <video ref={remoteVideo} autoPlay playsInline data-testid="remote-video" style={{ width: '24rem', maxWidth: '100%', background: '#222' }} />
          <figcaption>{s('other')}</figcaption>
        </figure>
        <figure>
          <video ref={localVideo} autoPlay playsInline muted data-testid="local-video" style={{ width: '12rem', background: '#222' }} />
          <figcaption>{s('you')}</figcaption>
        </figure>
      </div>
      {state !== 'ended' && state !== 'permission' ? (
        <div className="call-controls" style={{ display: 'flex', gap: '0.5rem' }}>
          <button
            type="button"
            aria-pressed={muted}
            onClick={() => {
              call.current?.setMuted(!muted);
              setMuted(!muted);
            }}
          >
            {muted ? s('unmute') : s('mute')}
          </button>
          <button
            type="button"
            aria-pressed={cameraOff}
            onClick={() => {
              call.current?.setCameraOff(!cameraOff);
              setCameraOff(!cameraOff);
            }}
          >
            {cameraOff ? s('cameraOn') : s('cameraOff')}
          </button>
          <button type="button" className="danger" onClick={hangUp} data-testid="hang-up">
            {s('hangUp')}
          </button>
        </div>
      ) : null}
    </section>
  );
}
