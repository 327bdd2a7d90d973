#!/usr/bin/python3
"""Drives peerd-gtk as a person would, through the accessibility tree
(AT-SPI, python3-pyatspi), for the lab tests (issue 45).

    desktop_drive.py wait-name NAME SECONDS   an object named NAME appears
    desktop_drive.py wait-text WORDS SECONDS  a label whose text holds WORDS appears
    desktop_drive.py select LIST ROW SECONDS  selects the row named ROW in the list named LIST
    desktop_drive.py press BUTTON SECONDS     presses the button named BUTTON
    desktop_drive.py type FIELD TEXT SECONDS  types TEXT into the field named FIELD
    desktop_drive.py tab-to NAME TABS         presses Tab (at most TABS times) until
                                              the focus is on the object named NAME
    desktop_drive.py down-to NAME TIMES       the same with Down (rows of a list)
    desktop_drive.py keys KEY...              presses keys (X keysym names: Return,
                                              space, Down, Tab, ctrl+l; or text:TEXT)
    desktop_drive.py focused                  prints the focused object's role and name
    desktop_drive.py drag X1 Y1 X2 Y2         presses the pointer's first button at
                                              (X1, Y1), moves in steps to (X2, Y2)
                                              and lets go there (a drag and drop)
    desktop_drive.py tree                     prints the app's tree

tab-to and keys press keys as a keyboard would (XTest, through AT-SPI's
registry), never an action: what the keyboard-only test uses.

Each waits up to SECONDS for what it needs, and exits 1 with what it saw
when that never comes."""
import sys
import time

import pyatspi


def app():
    for candidate in pyatspi.Registry.getDesktop(0):
        if candidate is not None and candidate.name == "peerd-gtk":
            return candidate
    return None


def search(root, matches):
    """The first object below root (root too) that matches, depth first;
    an object that goes away while it is read ends that branch."""
    if root is None:
        return None
    try:
        if matches(root):
            return root
        for child in root:
            hit = search(child, matches)
            if hit is not None:
                return hit
    except Exception:
        return None
    return None


def find(root, name, role=None):
    return search(root, lambda node: node.name == name and (role is None or node.getRoleName() == role))


def tree(root, depth=0, out=None):
    out = [] if out is None else out
    try:
        out.append("  " * depth + "%s '%s'" % (root.getRoleName(), root.name))
        for child in root:
            tree(child, depth + 1, out)
    except Exception:
        pass
    return out


def focused(root):
    """The object that has the keyboard focus, in the app's windows."""
    return search(root, lambda node: node.getState().contains(pyatspi.STATE_FOCUSED))


KEYSYMS = {"Return": 0xff0d, "Tab": 0xff09, "space": 0x20, "Down": 0xff54, "Up": 0xff52, "Escape": 0xff1b,
           "Left": 0xff51, "Right": 0xff53}
# X modifier masks, held with LOCKMODIFIERS around a key.
MODIFIERS = {"shift": 1, "ctrl": 4, "alt": 8}


def focus_window():
    """Xvfb has no window manager, and X's focus follows the pointer
    (PointerRoot): the pointer rests over the app's window, without a
    click, so its keys go there, as a window manager's focus would."""
    root = app()
    try:
        frame = root[0]
        x, y, width, height = frame.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        pyatspi.Registry.generateMouseEvent(x + width // 2, y + 5, pyatspi.MOUSE_ABS)
        time.sleep(0.1)
    except Exception:
        pass


def press_key(name):
    """One key, or a chord such as ctrl+l, pressed and released."""
    parts = name.split("+")
    mask = sum(MODIFIERS[modifier] for modifier in parts[:-1])
    if mask:
        pyatspi.Registry.generateKeyboardEvent(mask, None, pyatspi.KEY_LOCKMODIFIERS)
    last = parts[-1]
    pyatspi.Registry.generateKeyboardEvent(KEYSYMS.get(last, ord(last[0]) if len(last) == 1 else 0), None, pyatspi.KEY_SYM)
    if mask:
        pyatspi.Registry.generateKeyboardEvent(mask, None, pyatspi.KEY_UNLOCKMODIFIERS)
    time.sleep(0.15)


def until(seconds, probe):
    deadline = time.time() + seconds
    while True:
        hit = probe()
        if hit:
            return hit
        if time.time() > deadline:
            root = app()
            sys.exit("not found; the app's tree:\n" + ("\n".join(tree(root)) if root else "(no app named peerd-gtk)"))
        time.sleep(0.1)


def main(argv):
    verb = argv[1]
    if verb == "tree":
        print("\n".join(tree(app())))
    elif verb == "wait-name":
        until(float(argv[3]), lambda: find(app(), argv[2]))
    elif verb == "wait-text":
        until(float(argv[3]), lambda: search(app(), lambda node: node.getRoleName() == "label" and argv[2] in (node.name or "")))
    elif verb == "select":
        def pick():
            listing = find(app(), argv[2], "list")
            if listing is None:
                return None
            for index, row in enumerate(listing):
                if row.name == argv[3]:
                    listing.querySelection().selectChild(index)
                    return True
            return None
        until(float(argv[4]), pick)
    elif verb == "press":
        def press():
            button = find(app(), argv[2], "push button")
            if button is None:
                return None
            button.queryAction().doAction(0)
            return True
        until(float(argv[3]), press)
    elif verb == "focused":
        hit = focused(app())
        print("%s '%s'" % (hit.getRoleName(), hit.name) if hit is not None else "(nothing focused)")
    elif verb in ("tab-to", "down-to"):
        focus_window()
        key = "Tab" if verb == "tab-to" else "Down"
        for _ in range(int(argv[3]) + 1):
            hit = focused(app())
            if hit is not None and hit.name == argv[2]:
                return
            press_key(key)
            time.sleep(0.1)
        hit = focused(app())
        sys.exit("%s never reached '%s'; the focus is on %s" % (key, argv[2], "%s '%s'" % (hit.getRoleName(), hit.name) if hit is not None else "nothing"))
    elif verb == "drag":
        x1, y1, x2, y2 = (int(v) for v in argv[2:6])
        pyatspi.Registry.generateMouseEvent(x1, y1, pyatspi.MOUSE_ABS)
        time.sleep(0.2)
        pyatspi.Registry.generateMouseEvent(x1, y1, "b1p")
        time.sleep(0.2)
        for step in range(1, 21):
            pyatspi.Registry.generateMouseEvent(x1 + (x2 - x1) * step // 20, y1 + (y2 - y1) * step // 20, pyatspi.MOUSE_ABS)
            time.sleep(0.05)
        time.sleep(0.3)
        pyatspi.Registry.generateMouseEvent(x2, y2, "b1r")
    elif verb == "keys":
        focus_window()
        for key in argv[2:]:
            if key.startswith("text:"):
                for character in key[5:]:
                    pyatspi.Registry.generateKeyboardEvent(ord(character), None, pyatspi.KEY_SYM)
                    time.sleep(0.02)
            else:
                press_key(key)
    elif verb == "type":
        def type_in():
            field = find(app(), argv[2])
            if field is None:
                return None
            try:
                field.queryEditableText().setTextContents(argv[3])
            except NotImplementedError:
                # No EditableText here: focus the field and press the keys.
                field.queryComponent().grabFocus()
                for key in argv[3]:
                    pyatspi.Registry.generateKeyboardEvent(ord(key), None, pyatspi.KEY_SYM)
            return True
        until(float(argv[4]), type_in)
    else:
        sys.exit("unknown verb " + verb)


if __name__ == "__main__":
    main(sys.argv)
