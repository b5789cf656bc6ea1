// Placeholder so the test target builds until LiftModel's tests land.
import LiftModel
import Testing
