// Placeholder so the test target builds until LiftMask's tests land.
import LiftMask
import Testing
