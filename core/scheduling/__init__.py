"""The scheduling loop: queue, event handlers, schedule-one, the binding cycle and clocks."""
