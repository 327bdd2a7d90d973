#!/usr/bin/python3
"""A file manager's window, as far as a drag goes (issue 45: files
dropped on peerd-gtk): a small GTK 4 window at the top left of the
display whose label drags FILE as a file list (text/uri-list), as
Nautilus's icons do. The lab test presses the pointer on it and lets go
over peerd-gtk (XTest, through AT-SPI). It prints "ready" once shown.

    drag_source.py FILE"""
import sys

import gi
gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gdk, Gio, GLib, Gtk


def main():
    path = sys.argv[1]
    app = Gtk.Application(application_id="org.peerd.DragSource")

    def activate(application):
        window = Gtk.ApplicationWindow(application=application, title="drag source")
        window.set_default_size(240, 120)
        label = Gtk.Label(label="drag me")
        source = Gtk.DragSource(actions=Gdk.DragAction.COPY)
        files = Gdk.FileList.new_from_list([Gio.File.new_for_path(path)])
        source.connect("prepare", lambda *args: Gdk.ContentProvider.new_for_value(files))
        label.add_controller(source)
        window.set_child(label)
        window.present()
        GLib.timeout_add(500, lambda: print("ready", flush=True) and False)

    app.connect("activate", activate)
    app.run([])


if __name__ == "__main__":
    main()
