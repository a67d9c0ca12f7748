#!/bin/sh
# How the archives beside this script were made (PROVENANCE.md gives the versions). Run once,
# by hand, on Debian 12 with zip 3.0-13 and p7zip-full 16.02+really26.02+dfsg-0+deb12u1 (7-Zip
# 26.02). Encryption draws fresh salts and IVs, so running it again makes different bytes that
# open to the same text: the committed files are the record, this script is how they were made.
set -eu
PASSWORD=T7rQm2XvK9pLw4Zd          # 16 characters, as the document's ("длина пароля - 16 символов")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$(pwd)
cd "$work"
# the document's fragment "1 2 3 4 5 6 6 5 4 3 2 1" at the start of cuts 4 and 5 (nardy.rolls)
printf 'KRDKRDKRDGIW91NE' > sequence.txt
# 10000 numbers, the document's archive size: SHA-256 in counter mode, each byte below 252 a symbol
python3 -c '
import hashlib
symbols, text, block = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "", 0
while len(text) < 5000:
    for byte in hashlib.sha256(b"nardy.archive/sequence-5000/v1:%d" % block).digest():
        if byte < 252 and len(text) < 5000:
            text += symbols[byte % 36]
    block += 1
open("sequence-5000.txt", "w").write(text)'

zip -q -P "$PASSWORD" "$out/zipcrypto-document.zip" sequence.txt
mv sequence-5000.txt game.txt
zip -q -P "$PASSWORD" "$out/zipcrypto-5000.zip" game.txt
7z a -bd -bso0 -tzip -p"$PASSWORD" "$out/zipcrypto-7zip-5000.zip" game.txt
7z a -bd -bso0 -tzip -p"$PASSWORD" -mem=AES256 "$out/zip-aes256-document.zip" sequence.txt
7z a -bd -bso0 -tzip -p"$PASSWORD" -mem=AES256 "$out/zip-aes256-5000.zip" game.txt
7z a -bd -bso0 -p"$PASSWORD" -mhe=on "$out/7z-aes256-document.7z" sequence.txt
7z a -bd -bso0 -p"$PASSWORD" -mhe=on "$out/7z-aes256-5000.7z" game.txt
7z a -bd -bso0 -p"$PASSWORD" "$out/7z-aes256-open-header.7z" game.txt

# a file written by a text editor or echo: one line break at the end
echo KRDKRDKRDGIW91NE > line.txt
zip -q -P "$PASSWORD" "$out/zipcrypto-line-break.zip" line.txt
printf 'KRDKRDKRDGIW91NE\r\n' > crlf.txt
7z a -bd -bso0 -p"$PASSWORD" -mhe=on "$out/7z-aes256-crlf.7z" crlf.txt

# not encrypted: the document's archive "уже без пароля", published after the game
zip -q "$out/zip-no-password.zip" sequence.txt
7z a -bd -bso0 "$out/7z-no-password.7z" sequence.txt

# members: none (an empty folder only), two files, and a file inside a folder
mkdir empty && zip -q -P "$PASSWORD" "$out/zipcrypto-folder-only.zip" empty/
7z a -bd -bso0 -p"$PASSWORD" -mhe=on "$out/7z-aes256-folder-only.7z" empty
printf 'played on table 7\n' > notes.txt
zip -q -P "$PASSWORD" "$out/zipcrypto-two-files.zip" sequence.txt notes.txt
7z a -bd -bso0 -tzip -p"$PASSWORD" -mem=AES256 "$out/zip-aes256-two-files.zip" sequence.txt notes.txt
7z a -bd -bso0 -p"$PASSWORD" -mhe=on "$out/7z-aes256-two-files.7z" sequence.txt notes.txt
mkdir game && cp sequence.txt game/sequence.txt
zip -q -r -P "$PASSWORD" "$out/zipcrypto-in-folder.zip" game

# a symbol outside the alphabet: lower case, as a careless engine might write
printf 'KRDKRDKRDgIW91NE' > lower.txt
zip -q -P "$PASSWORD" "$out/zipcrypto-lower-case.zip" lower.txt
7z a -bd -bso0 -tzip -p"$PASSWORD" -mem=AES256 "$out/zip-aes256-lower-case.zip" lower.txt

# methods a verifier need not read: bzip2 in ZIP (both encryptions), PPMd in 7z, AES-128 in ZIP
zip -q -Z bzip2 -P "$PASSWORD" "$out/zipcrypto-bzip2-5000.zip" game.txt
7z a -bd -bso0 -tzip -p"$PASSWORD" -mem=AES256 -mm=BZip2 "$out/zip-aes256-bzip2-5000.zip" game.txt
7z a -bd -bso0 -p"$PASSWORD" -mhe=on -m0=PPMd "$out/7z-aes256-ppmd-5000.7z" game.txt
7z a -bd -bso0 -tzip -p"$PASSWORD" -mem=AES128 "$out/zip-aes128-document.zip" sequence.txt

# bombs: 2 MiB of A (past the 1 MiB bound) in a few kilobytes
python3 -c 'open("bomb.txt", "w").write("A" * 2097152)'
zip -q -P "$PASSWORD" "$out/zipcrypto-bomb.zip" bomb.txt
7z a -bd -bso0 -tzip -p"$PASSWORD" -mem=AES256 "$out/zip-aes256-bomb.zip" bomb.txt
7z a -bd -bso0 -p"$PASSWORD" -mhe=on "$out/7z-aes256-bomb.7z" bomb.txt
# exactly the bound, 1 MiB, is accepted
python3 -c 'open("bound.txt", "w").write("A" * 1048576)'
zip -q -P "$PASSWORD" "$out/zipcrypto-at-bound.zip" bound.txt

# added the same day, the same archivers: the other methods and key length read
7z a -bd -bso0 -p"$PASSWORD" -mhe=on -mx0 "$out/7z-aes256-copy-document.7z" sequence.txt
7z a -bd -bso0 -p"$PASSWORD" -mhe=on -m0=LZMA "$out/7z-aes256-lzma-5000.7z" game.txt
7z a -bd -bso0 -tzip -p"$PASSWORD" -mem=AES192 "$out/zip-aes192-5000.zip" game.txt
