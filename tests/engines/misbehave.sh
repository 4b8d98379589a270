#!/usr/bin/env bash
# Test engines that misbehave, one per MODE (tests/engines.rs and tests/python/test_engines.py
# play each; every process they start carries a name the tests look for in the process table):
#   crash      exits with status 3 when asked for a move (a last word on stderr)
#   hang       never answers go
#   illegal    always answers South's first house (illegal when it plays North)
#   garbage    answers a move that is no move
#   flood      writes info lines without end when asked for a move
#   longline   writes one endless line when asked for a move
#   closes     closes its output when asked for a move, and goes on running
#   mute       never answers uci
#   forgetful  answers the first isready only (the next game's handshake gets nothing); its
#              moves are those of `awale engine greedy` ($AWALE_BIN), which it runs as a helper
#   exactline  plays as `awale engine greedy` (a helper, as forgetful), each move after an info
#              line of exactly 65,536 bytes (the longest line the referee takes)
#   spawner    starts a process of its own, then hangs when asked for a move
#   wari       plays wari only, and says so (UCI_Variant)
#   hostile    lists a UCI_Variant value that is a terminal escape sequence (beside abapa), and
#              when asked for a move writes escape sequences (a title change, a screen clear) on
#              stderr and exits with status 3
#   setsid     starts a process in a session of its own (setsid) and one more by a double fork,
#              then hangs when asked for a move
#   setsidcrash  starts a process in a session of its own by a double fork, then exits with
#              status 3 when asked for a move (what it started is an orphan)
#   twice      plays as forgetful's helper, answering every go twice (the second is stale)
#   early      plays as forgetful's helper, but answers at `position`, before go
#   stderrflood  plays as forgetful's helper, writing 2 MiB on stderr before every move
mode=$1
ready=0
if [ "$mode" = spawner ]; then
  bash -c 'exec -a awale-test-grandchild sleep 300' &
fi
case "$mode" in twice | early | stderrflood) helped=1 ;; esac
if [ "$mode" = forgetful ] || [ "$mode" = exactline ] || [ -n "$helped" ]; then
  coproc helper { exec -a awale-test-helper "$AWALE_BIN" engine greedy; }
fi
while read -r line; do
  case "$line" in
    uci)
      [ "$mode" = mute ] && continue
      # Started before uciok: they exist when the referee ends the engine.
      if [ "$mode" = setsid ]; then
        setsid bash -c 'exec -a awale-test-grandchild sleep 300' &
        ( setsid bash -c 'exec -a awale-test-grandchild sleep 300' & )
      fi
      if [ "$mode" = setsidcrash ]; then
        ( setsid bash -c 'exec -a awale-test-grandchild sleep 300' & )
      fi
      echo "id name $mode"
      [ "$mode" = wari ] && echo "option name UCI_Variant type combo default wari var wari"
      [ "$mode" = hostile ] && printf 'option name UCI_Variant type combo default abapa var abapa var \033]0;pwned\007\033[2J\n'
      echo uciok ;;
    isready)
      if [ "$mode" != forgetful ] || [ "$ready" = 0 ]; then echo readyok; ready=1; fi ;;
    position*)
      if [ "$mode" = forgetful ] || [ "$mode" = exactline ] || [ -n "$helped" ]; then echo "$line" >&"${helper[1]}"; fi
      if [ "$mode" = early ]; then
        echo "go movetime 10" >&"${helper[1]}"
        while read -r answer <&"${helper[0]}"; do
          case "$answer" in bestmove*) echo "$answer"; break ;; esac
        done
      fi ;;
    go*)
      case "$mode" in
        crash) echo "misbehave.sh: out of cheese" >&2; exit 3 ;;
        illegal) echo "bestmove A" ;;
        garbage) echo "bestmove @@" ;;
        flood) while :; do echo "info string flood flood flood"; done ;;
        longline) while :; do printf 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'; done ;;
        closes) exec 1>&-; exec -a awale-test-grandchild sleep 300 ;;
        exactline)
          # "info string " (12 bytes) and 65,524 more: 65,536 before the newline.
          printf 'info string %s\n' "$(head -c 65524 /dev/zero | tr '\0' x)"
          echo "$line" >&"${helper[1]}"
          while read -r answer <&"${helper[0]}"; do
            case "$answer" in bestmove*) echo "$answer"; break ;; esac
          done ;;
        forgetful)
          echo "$line" >&"${helper[1]}"
          while read -r answer <&"${helper[0]}"; do
            case "$answer" in bestmove*) echo "$answer"; break ;; esac
          done ;;
        hostile) printf 'misbehave.sh: \033]0;pwned\007\033[2J\033[31mred\n' >&2; exit 3 ;;
        setsidcrash) exit 3 ;;
        twice)
          echo "$line" >&"${helper[1]}"
          while read -r answer <&"${helper[0]}"; do
            case "$answer" in bestmove*) echo "$answer"; echo "$answer"; break ;; esac
          done ;;
        stderrflood)
          head -c 2097152 /dev/zero | tr '\0' e >&2
          echo "$line" >&"${helper[1]}"
          while read -r answer <&"${helper[0]}"; do
            case "$answer" in bestmove*) echo "$answer"; break ;; esac
          done ;;
      esac ;;
    quit) exit 0 ;;
  esac
done
