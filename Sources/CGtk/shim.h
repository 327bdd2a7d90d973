// GTK 4 and libadwaita (libgtk-4-dev, libadwaita-1-dev) for peerd-gtk
// (issue 45). GTK's casts and g_signal_connect are macros, and some of its
// calls are variadic, which Swift cannot call: these helpers wrap them.
#include <adwaita.h>
#include <glib-unix.h>
#include <gtk/gtk.h>
#include <stdint.h>
#include <unistd.h>

// The main queue's wake descriptor and its drain (libdispatch's hooks for
// a run loop that owns the main thread; peerd's Poller uses them too).
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

static gboolean peerd_gtk_main_queue_ready(gint fd, GIOCondition condition, gpointer data) {
    uint64_t count;
    (void)condition; (void)data;
    (void)!read(fd, &count, sizeof count);
    _dispatch_main_queue_callback_4CF(NULL);
    return G_SOURCE_CONTINUE;
}

/// Runs the main queue (the main actor's work) from GLib's main loop on
/// this thread, whenever libdispatch pokes its descriptor: no polling.
static inline guint peerd_gtk_attach_main_queue(void) {
    return g_unix_fd_add(_dispatch_get_main_queue_handle_4CF(), G_IO_IN, peerd_gtk_main_queue_ready, NULL);
}

static inline GtkWindow *peerd_gtk_window(GtkWidget *w) { return GTK_WINDOW(w); }
static inline GtkBox *peerd_gtk_box(GtkWidget *w) { return GTK_BOX(w); }
static inline GtkButton *peerd_gtk_button(GtkWidget *w) { return GTK_BUTTON(w); }
static inline GtkLabel *peerd_gtk_label(GtkWidget *w) { return GTK_LABEL(w); }
static inline GtkListBox *peerd_gtk_list_box(GtkWidget *w) { return GTK_LIST_BOX(w); }
static inline GtkListBoxRow *peerd_gtk_list_box_row(GtkWidget *w) { return GTK_LIST_BOX_ROW(w); }
static inline GtkScrolledWindow *peerd_gtk_scrolled(GtkWidget *w) { return GTK_SCROLLED_WINDOW(w); }
static inline AdwLeaflet *peerd_adw_leaflet(GtkWidget *w) { return ADW_LEAFLET(w); }
static inline GtkWidget *peerd_gtk_widget(void *w) { return GTK_WIDGET(w); }
static inline GtkEditable *peerd_gtk_editable(GtkWidget *w) { return GTK_EDITABLE(w); }
static inline GtkEntry *peerd_gtk_entry(GtkWidget *w) { return GTK_ENTRY(w); }
static inline GtkProgressBar *peerd_gtk_progress_bar(GtkWidget *w) { return GTK_PROGRESS_BAR(w); }

// The handlers take every object as a GtkWidget: GTK 4 declares most of
// its types final and opaque, which Swift sees as OpaquePointer.

/// A button's "clicked".
static inline gulong peerd_gtk_on_clicked(GtkWidget *button, void (*handler)(GtkWidget *, gpointer), gpointer data) {
    return g_signal_connect_data(button, "clicked", G_CALLBACK(handler), data, NULL, 0);
}

/// A list box's "row-selected" (row NULL: nothing selected).
static inline gulong peerd_gtk_on_row_selected(GtkWidget *list, void (*handler)(GtkWidget *, GtkWidget *, gpointer), gpointer data) {
    return g_signal_connect_data(list, "row-selected", G_CALLBACK(handler), data, NULL, 0);
}

/// A window's "close-request".
static inline gulong peerd_gtk_on_close(GtkWidget *window, gboolean (*handler)(GtkWidget *, gpointer), gpointer data) {
    return g_signal_connect_data(window, "close-request", G_CALLBACK(handler), data, NULL, 0);
}

/// A widget's accessible name (what the tests and screen readers find it by).
static inline void peerd_gtk_accessible_label(GtkWidget *widget, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}
