"""Reference reading of an mbox with Python's standard library only
(mailbox + email), for the differential test in differential.rs.

Prints one JSON object per message: Message-ID, decoded subject, and the
Date header as UTC epoch seconds (null when Python cannot read it).
Usage: python3 differential.py FILE.mbox
"""
import email.header
import email.utils
import json
import mailbox
import sys


def text(value):
    if value is None:
        return None
    try:
        parts = email.header.decode_header(str(value))
        out = str(email.header.make_header(parts))
    except Exception:
        out = str(value)
    return " ".join(out.split())


def main(path):
    for msg in mailbox.mbox(path, create=False):
        date = msg["Date"]
        epoch = None
        if date is not None:
            try:
                d = email.utils.parsedate_to_datetime(str(date))
                if d.tzinfo is None:
                    d = d.replace(tzinfo=__import__("datetime").timezone.utc)
                epoch = int(d.timestamp())
            except Exception:
                epoch = None
        mid = msg["Message-ID"]
        print(json.dumps({"id": " ".join(str(mid).split()) if mid is not None else None, "subject": text(msg["Subject"]), "date": epoch}))


if __name__ == "__main__":
    main(sys.argv[1])
