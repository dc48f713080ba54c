import Dispatch
import Foundation
import LocationSources
import GeoModel

// One fix through the pipeline: filters, placemark lookup (or reuse), city tracking, persistence,
// events, fix observers, region monitors, and the answer to a pending request.
extension LocationManager {
    func process(_ location: Location) {
        guard var current = run else { return }
        let settings = self.settings.withLock { $0 }
        guard location.isValid else { return }
        if !current.sawValidFix {
            current.sawValidFix = true
            run = current
            if settings.discardsFirstFix { return }
        }
        // Standard updates and one-shot requests: steps 3 and 4. The significant-change service: its
        // own rule. A fix either would deliver is delivered.
        // An unknown accuracy (negative) passes only accuracyAny: it cannot be shown to be within a
        // finite desiredAccuracy, and -1 ≤ 10 must not make it the best fix there is.
        let accurate = settings.desiredAccuracy >= LocationManager.accuracyAny
            || (location.horizontalAccuracyIsKnown && location.horizontalAccuracy <= settings.desiredAccuracy)
        // A GPX file without <hdop> (or an NMEA log without DOP) under a finite desiredAccuracy would play
        // nothing: say so, once a run, rather than drop a whole track without a word.
        if !accurate, !location.horizontalAccuracyIsKnown, !current.warnedUnknownAccuracy, current.continuous || request != nil {
            current.warnedUnknownAccuracy = true
            run = current
            emit(.warning(.unknownAccuracyDropped(desiredAccuracy: settings.desiredAccuracy)))
        }
        var accepted = false
        if current.continuous || request != nil, accurate {
            accepted = request != nil || settings.distanceFilter <= 0 || current.lastDelivered.map {
                location.coordinate.distance(to: $0.coordinate) >= settings.distanceFilter
            } ?? true
        }
        if var significant = current.significant {
            significant.options = settings.significantChange
            accepted = accepted || significant.isSignificant(location)
            if accepted { significant.delivered(location) }
            current.significant = significant
        }
        guard accepted else { return }
        current.lastDelivered = location
        run = current

        let placemark: Placemark?
        if let cached = lastLookup,
           cached.coordinate == location.coordinate
            || location.coordinate.distance(to: cached.coordinate) <= settings.placemarkReuseDistance {
            placemark = cached.placemark
        } else {
            do throws(GeocoderError) {
                placemark = try geocoder.placemark(for: location.coordinate, previous: lastLookup)
                lastLookup = PlacemarkLookup(coordinate: location.coordinate, placemark: placemark)
            } catch {
                placemark = nil
                emit(.error(.geocodingFailed(error.description)))
            }
        }

        tracker.hysteresis = settings.cityChangeHysteresis
        let outcome = tracker.observe(placemark, at: location.coordinate)
        let shown = tracker.current
        snapshot.withLock {
            $0.location = location
            $0.currentPlacemark = shown
        }
        emit(.location(location))
        emit(.placemark(placemark, for: location))
        let fix = Fix(location: location, placemark: placemark)
        for observer in fixObservers.withLock({ $0 }) { observer.observe(fix) }
        if let change = outcome.cityChange {
            emit(.cityChanged(from: change.from, to: change.to, at: location))
        }
        // Region events here, in the same stream as the fix's own events: judged on another queue and
        // delivered from there, they fell anywhere among the next fixes' events, differently on each run.
        for judge in regionJudges.withLock({ $0 }) {
            for event in judge.judge(fix) { emit(.region(event)) }
        }
        if outcome.currentChanged, let shown, let store = currentPlacemarkStore {
            do throws(PlacemarkStore.Failure) {
                try store.save(shown, at: clock.now)
            } catch {
                emit(.warning(.currentPlacemarkNotSaved(path: store.url.path, reason: error.description)))
            }
        }
        // A fix the significant-change service let through despite desiredAccuracy does not answer.
        if let pending = request, accurate {
            pending.timer.cancel()
            request = nil
            // End the run before waking `locate()` callers, so they see `isUpdatingLocation == false`.
            if run?.keepsRunning == false { endRun(.requestFulfilled) }
            resolveWaiters(.success(fix))
        }
    }
}
