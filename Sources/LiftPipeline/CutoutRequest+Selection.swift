import Lift

extension CutoutRequest {
    /// The subjects `point` or `instances` choose from `analysis`, largest first for `all`.
    /// - Throws: `CutoutError.pointOutsidePhoto`, `.noSubjectAt` or `.noSuchSubject`.
    public func selectSubjects(from analysis: Analysis) throws(CutoutError) -> [Subject] {
        let subjects = analysis.subjects
        if let point {
            let photo = analysis.photo
            guard point.x < Double(photo.width), point.y < Double(photo.height) else {
                throw .pointOutsidePhoto(x: point.x, y: point.y, width: photo.width, height: photo.height)
            }
            guard let subject = analysis.subject(at: point) else {
                throw .noSubjectAt(x: point.x, y: point.y, subjectCount: subjects.count)
            }
            return [subject]
        }
        switch instances {
        case .all: return subjects
        case .largest: return Array(subjects.prefix(1))
        case .numbers(let numbers):
            return try numbers.map { number throws(CutoutError) in
                guard number <= subjects.count else { throw .noSuchSubject(number: number, subjectCount: subjects.count) }
                return subjects[number - 1]
            }
        }
    }
}
