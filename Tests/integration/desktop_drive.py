#!/usr/bin/python3
"""Drives peerd-gtk as a person would, through the accessibility tree
(AT-SPI, python3-pyatspi), for the lab tests (issue 45).

    desktop_drive.py wait-name NAME SECONDS   an object named NAME appears
    desktop_drive.py wait-text WORDS SECONDS  a label whose text holds WORDS appears
    desktop_drive.py select LIST ROW SECONDS  selects the row named ROW in the list named LIST
    desktop_drive.py press BUTTON SECONDS     presses the button named BUTTON
    desktop_drive.py type FIELD TEXT SECONDS  types TEXT into the field named FIELD
    desktop_drive.py tree                     prints the app's tree

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


def find(root, name, role=None):
    if root is None:
        return None
    try:
        if root.name == name and (role is None or root.getRoleName() == role):
            return root
        for child in root:
            hit = find(child, name, role)
            if hit is not None:
                return hit
    except Exception:
        return None
    return None


def tree(root, depth=0, out=None):
    out = [] if out is None else out
    try:
        out.append("  " * depth + "%s '%s'" % (root.getRoleName(), root.name))
        for child in root:
            tree(child, depth + 1, out)
    except Exception:
        pass
    return out


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
        def holding(root):
            try:
                if root.getRoleName() == "label" and argv[2] in (root.name or ""):
                    return root
                for child in root:
                    hit = holding(child)
                    if hit is not None:
                        return hit
            except Exception:
                return None
            return None
        until(float(argv[3]), lambda: holding(app()) if app() is not None else None)
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
