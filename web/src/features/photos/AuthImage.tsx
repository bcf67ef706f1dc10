// A photo of the API shown with the session: fetched with the token, shown from an object URL that is
// released when the image goes (a plain <img src> would send no token).
import { useEffect, useState } from 'react';
import { photoObjectUrl } from './api';

export function AuthImage({ url, alt, className }: { url: string; alt: string; className?: string }) {
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let gone = false;
    let made: string | null = null;
    photoObjectUrl(url)
      .then((u) => {
        made = u;
        if (gone) URL.revokeObjectURL(u);
        else setSrc(u);
      })
      .catch(() => !gone && setFailed(true));
    return () => {
      gone = true;
      if (made) URL.revokeObjectURL(made);
    };
  }, [url]);
  if (failed) return <span className={`photo-missing ${className ?? ''}`}>{alt}</span>;
  return src ? <img src={src} alt={alt} className={className} /> : <span className={`photo-loading ${className ?? ''}`} aria-busy="true" />;
}
